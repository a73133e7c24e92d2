import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';

import { ConfigError } from '../errors.js';
import { ScriptedChatClient } from '../models/scripted-chat-client.js';
import { Agent, type AgentOptions } from './agent.js';
import type { ChatAgent } from './chat-agent.js';
import { Handoff } from './handoff.js';
import { tool } from './tool.js';

const client = new ScriptedChatClient([]);
const noop = (name: string) => tool({ name, parameters: z.object({}), execute: () => '' });
const build = (options: Partial<AgentOptions>) => () =>
  new Agent({ name: 'helper', client, ...options });

describe('new Agent()', () => {
  it('exposes what orchestrations need, with defaults filled in', () => {
    const agent = new Agent({ name: 'triage', client, tools: [noop('a')], handoffs: ['billing'] });
    expect(agent.name).toBe('triage');
    expect(agent.description).toBe('An agent that provides assistance with ability to use tools.');
    expect(agent.tools.map((t) => t.name)).toEqual(['a']);
    expect(agent.handoffs).toEqual([new Handoff({ target: 'billing' })]);
    expect(agent.maxToolIterations).toBe(1);
    expectTypeOf(agent).toExtend<ChatAgent>();
  });

  it('accepts names of a letter and up to 63 letters, digits, "_" or "-"', () => {
    expect(build({ name: `a${'b'.repeat(63)}` })).not.toThrow();
    expect(build({ name: 'Billing-Agent_2' })).not.toThrow();
    for (const name of ['', '2fast', 'has space', `a${'b'.repeat(64)}`, 'ünï']) {
      expect(build({ name })).toThrow(ConfigError);
    }
    expect(build({ name: 'has space' })).toThrow(
      'Agent name "has space" is invalid. Use a letter followed by up to 63 letters, digits, "_" or "-".',
    );
  });

  it('needs a client', () => {
    expect(build({ client: undefined as unknown as ScriptedChatClient })).toThrow(
      'Agent "helper" needs a `client`: a ChatClient such as OpenAIChatClient or ScriptedChatClient.',
    );
  });

  it('rejects two tools with one name and things that are not tools', () => {
    expect(build({ tools: [noop('a'), noop('a')] })).toThrow(
      'Agent "helper" has two tools named "a". Give each tool a unique name.',
    );
    expect(build({ tools: [{ name: 'x' } as unknown as ReturnType<typeof noop>] })).toThrow(
      'Agent "helper": tools[0] is not a tool. Create tools with tool({ name, parameters, execute }).',
    );
  });

  it('rejects repeated, self-targeted and colliding handoffs', () => {
    expect(build({ handoffs: ['billing', new Handoff({ target: 'billing', name: 'x' })] })).toThrow(
      'Agent "helper" has two handoffs to "billing". Keep one of them.',
    );
    expect(build({ handoffs: ['helper'] })).toThrow(
      'Agent "helper" cannot hand off to itself. Remove "helper" from its handoffs.',
    );
    expect(build({ tools: [noop('handoff_to_tech')], handoffs: ['tech'] })).toThrow(
      'Agent "helper": the handoff tool "handoff_to_tech" (to "tech") has the same name as another ' +
        'of its tools. Rename that tool or give the Handoff another name.',
    );
    expect(build({ handoffs: [42 as unknown as string] })).toThrow(
      'Agent "helper": a handoff must be a target name or a Handoff, got 42.',
    );
  });

  it('rejects a bad maxToolIterations or outputSchema', () => {
    expect(build({ maxToolIterations: 0 })).toThrow(
      'Agent "helper" needs `maxToolIterations` to be a positive integer, got 0.',
    );
    expect(build({ outputSchema: { type: 'object' } as unknown as z.ZodType })).toThrow(
      'Agent "helper" needs `outputSchema` to be a zod schema such as z.object({ ... }).',
    );
    expect(build({ outputSchema: z.object({ at: z.date() }) })).toThrow(
      'Agent "helper": its outputSchema cannot be described in JSON Schema: `at` is a z.date(). ' +
        'Write z.iso.datetime() instead (an ISO 8601 string; new Date(value) makes it a Date).',
    );
  });

  it('rejects an onToolError that is not a function', () => {
    const bad = 'log' as unknown as NonNullable<AgentOptions['onToolError']>;
    expect(build({ onToolError: bad })).toThrow(ConfigError);
    expect(build({ onToolError: bad })).toThrow(
      'Agent "helper" needs `onToolError` to be a function (error, { tool, callId, agent, ' +
        'sessionId }) => void, got "log".',
    );
  });
});
