// Issue 43, item 5: `session.record({ redact })` kept strings under keys named name, id, source,
// target, type, createdAt, callId and requestId anywhere, metadata and state values included, so
// a customer's name stayed in a "redacted" recording. Only the structural fields of Baton's own
// messages (a message's id, type, source, createdAt; a call's id and name; a result's callId and
// name) stay; every string of the user's values goes through `redact`.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  HandoffBuilder,
  replay,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  textMessage,
  tool,
} from '../../../src/index.js';

const NAME = 'Alice Smith';
const KEYS = ['name', 'id', 'source', 'target', 'type', 'createdAt', 'callId', 'requestId'];
/** An object holding the customer's name under every key that names a structural field. */
const customer = () => Object.fromEntries(KEYS.map((key) => [key, NAME]));

function desk() {
  const lookup = tool({
    name: 'lookup',
    description: 'Looks the customer up.',
    parameters: z.object({}),
    effect: 'read',
    execute: (_args, ctx) => {
      ctx.updateState((draft) => {
        draft.found = { list: [customer()], nested: { deeper: customer() } };
      });
      return 'found';
    },
  });
  const clerk = new Agent({
    name: 'clerk',
    tools: [lookup],
    client: new ScriptedChatClient((request) =>
      request.messages.at(-1)?.role === 'tool'
        ? scriptedText('Which invoice?')
        : scriptedToolCall('lookup', {}, 'call-1'),
    ),
  });
  return new HandoffBuilder({ name: 'redaction', participants: [clerk] })
    .coordinator(clerk)
    .build();
}

describe('session.record({ redact }) on metadata and state values', () => {
  it('redacts every string of the user’s values, keeps the structural fields, and replays', async () => {
    const workflow = desk();
    const session = workflow.session('r');
    await session.updateState((draft) => {
      draft.customer = customer();
    });
    const input = textMessage({
      source: 'user',
      id: 'msg-1',
      content: 'Hello',
      metadata: { customer: customer(), tags: [customer()] },
    });
    const result = await session.run(input);
    expect(result.status).toBe('awaiting_input');
    const recording = await session.record({ redact: (text) => text.replaceAll(NAME, '[name]') });
    const text = JSON.stringify(recording);
    expect(text).not.toContain(NAME);

    const inputs = recording.runs.flatMap((run) => run.input ?? []);
    expect(inputs).toHaveLength(1);
    const message = inputs[0] as unknown as Record<string, unknown>;
    expect([message.id, message.type, message.source]).toEqual(['msg-1', 'TextMessage', 'user']);
    const redacted = Object.fromEntries(KEYS.map((key) => [key, '[name]']));
    expect(message.metadata).toEqual({ customer: redacted, tags: [redacted] });
    expect(text).toContain('"callId":"call-1"');
    expect(text).toContain('"name":"lookup"');
    expect(await replay(desk(), recording)).toEqual({ ok: true, turns: 1 });
  });
});
