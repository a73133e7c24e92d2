import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  type AgentOptions,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  tool,
  type ToolErrorInfo,
} from '../../src/index.js';
import { installTestTelemetry, type TestTelemetry } from '../support/otel-sdk.js';

let otel: TestTelemetry;
beforeAll(() => {
  otel = installTestTelemetry();
});
afterAll(() => otel.shutdown());
afterEach(() => {
  vi.unstubAllEnvs();
});

const KEY = 'sk-abcdefghijklmnopqrstuvwx';
const MESSAGE = 'database refused the connection (key [redacted])';

/** A one-agent team whose `lookup` tool throws `thrown`; the model calls it once, then answers. */
function failingLookup(thrown: Error, options: Partial<AgentOptions> = {}) {
  const lookup = tool({
    name: 'lookup',
    description: 'Finds an invoice.',
    parameters: z.object({ invoiceId: z.string() }),
    execute: () => {
      throw thrown;
    },
  });
  const client = new ScriptedChatClient([
    scriptedToolCall('lookup', { invoiceId: '42' }, 'c1'),
    scriptedText('The lookup failed.'),
  ]);
  const agent = new Agent({
    name: 'billing',
    client,
    tools: [lookup],
    maxToolIterations: 2,
    ...options,
  });
  return { client, team: new RoundRobinGroupChat([agent], { maxTurns: 1 }) };
}

describe('a tool that throws (issue 27 #22)', () => {
  it('reaches onToolError as thrown; the model gets its message only', async () => {
    const thrown = new Error(`database refused the connection (key ${KEY})`);
    const seen: [unknown, ToolErrorInfo][] = [];
    const { client, team } = failingLookup(thrown, {
      onToolError: (error, info) => seen.push([error, info]),
    });
    const result = await team.session('s1').run('go');

    expect(result.status).toBe('terminated');
    expect(seen).toEqual([
      [thrown, { tool: 'lookup', callId: 'c1', agent: 'billing', sessionId: 's1' }],
    ]);
    expect(seen[0]?.[0]).toBe(thrown);
    const toolMessage = client.calls[1]?.messages.find((m) => m.role === 'tool');
    expect(toolMessage?.content).toBe(`Tool "lookup" failed: ${MESSAGE}`);
  });

  it('adds an exception event with the stack frames only, without content capture', async () => {
    await otel.clear();
    const { team } = failingLookup(new Error(`database refused the connection (key ${KEY})`));
    await team.session('s2').run('go');

    const span = otel.spans().find((s) => s.name === 'execute_tool lookup');
    expect(span?.events.map((e) => e.name)).toEqual(['exception']);
    const attributes = span?.events[0]?.attributes ?? {};
    expect(attributes['exception.type']).toBe('Error');
    expect(attributes['exception.message']).toBeUndefined();
    const stack = String(attributes['exception.stacktrace']);
    expect(stack.split('\n')[0]).toBe('Error');
    expect(stack).toContain('tool-errors.test.ts');
    expect(stack).not.toContain('database refused');
    expect(stack).not.toContain(KEY);
  });

  it('adds the message and the whole stack with content capture, key redacted', async () => {
    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', 'true');
    await otel.clear();
    const { team } = failingLookup(new Error(`database refused the connection (key ${KEY})`));
    await team.session('s3').run('go');

    const span = otel.spans().find((s) => s.name === 'execute_tool lookup');
    const attributes = span?.events[0]?.attributes ?? {};
    expect([attributes['exception.type'], attributes['exception.message']]).toEqual([
      'Error',
      MESSAGE,
    ]);
    const stack = String(attributes['exception.stacktrace']);
    expect(stack.split('\n')[0]).toBe(`Error: ${MESSAGE}`);
    expect(stack).toContain('tool-errors.test.ts');
    expect(stack).not.toContain(KEY);
  });
});
