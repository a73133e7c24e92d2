import { describe, expect, it } from 'vitest';

import { ConfigError } from '../errors.js';
import type { FunctionCall, FunctionExecutionResult } from '../messages/message.js';
import { Handoff } from './handoff.js';
import { interceptHandoffs } from './handoff-middleware.js';

describe('Handoff', () => {
  it('fills the defaults from the target', () => {
    const handoff = new Handoff({ target: 'billing' });
    expect({ ...handoff }).toEqual({
      target: 'billing',
      name: 'handoff_to_billing',
      description: 'Handoff to billing.',
      message: 'Transferred to billing, adopting the role of billing immediately.',
    });
    expect(handoff.schema).toEqual({
      name: 'handoff_to_billing',
      description: 'Handoff to billing.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    });
  });

  it('keeps the name, description and message it is given', () => {
    const handoff = new Handoff({
      target: 'user',
      name: 'ask_user',
      description: 'Ask the user.',
      message: 'Waiting for you.',
    });
    expect({ ...handoff }).toEqual({
      target: 'user',
      name: 'ask_user',
      description: 'Ask the user.',
      message: 'Waiting for you.',
    });
  });

  it('rejects an empty target and a tool name providers refuse', () => {
    expect(() => new Handoff({ target: '' })).toThrow(ConfigError);
    expect(() => new Handoff({ target: '' })).toThrow(
      'Handoff needs a `target`: the name of the agent that takes over, got "".',
    );
    expect(() => new Handoff({ target: 'team lead' })).toThrow(
      'Handoff to "team lead": tool name "handoff_to_team lead" is invalid. Tool names are 1 to 64 ' +
        'letters, digits, "_" or "-"; pass a valid `name`.',
    );
    expect(new Handoff({ target: 'team lead', name: 'to_lead' }).name).toBe('to_lead');
  });
});

describe('interceptHandoffs()', () => {
  const handoffs = new Map(
    [new Handoff({ target: 'billing' }), new Handoff({ target: 'tech' })].map((h) => [h.name, h]),
  );
  const call = (id: string, name: string): FunctionCall => ({ id, name, arguments: '{}' });
  const executed = async (c: FunctionCall): Promise<FunctionExecutionResult> => ({
    callId: c.id,
    name: c.name,
    content: 'executed',
    isError: false,
  });

  it('answers the first handoff call itself and reports it; other calls pass through', async () => {
    const seen: string[] = [];
    const middleware = interceptHandoffs(handoffs, (h, _brief, c) =>
      seen.push(`${h.target} via ${c.id}`),
    );
    expect(await middleware(call('1', 'lookup'), executed)).toEqual({
      callId: '1',
      name: 'lookup',
      content: 'executed',
      isError: false,
    });
    expect(await middleware(call('2', 'handoff_to_billing'), executed)).toEqual({
      callId: '2',
      name: 'handoff_to_billing',
      content: 'Transferred to billing, adopting the role of billing immediately.',
      isError: false,
    });
    expect(seen).toEqual(['billing via 2']);
  });

  it('ignores every later handoff call with an error result saying why', async () => {
    const seen: string[] = [];
    const middleware = interceptHandoffs(handoffs, (h) => seen.push(h.target));
    await middleware(call('1', 'handoff_to_tech'), executed);
    expect(await middleware(call('2', 'handoff_to_billing'), executed)).toEqual({
      callId: '2',
      name: 'handoff_to_billing',
      content:
        'Handoff to "billing" was ignored: this answer already hands off to "tech". Call one ' +
        'handoff tool per answer.',
      isError: true,
    });
    expect(seen).toEqual(['tech']);
  });
});
