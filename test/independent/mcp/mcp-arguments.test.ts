// API.md §12 and §4, independent black-box suite: arguments of an MCP tool are validated against
// the server's JSON Schema before the call, like zod arguments. A bad call becomes an error result
// naming the tool, the server never sees it (the stdio server logs every call it receives), and
// the run goes on.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { mcpTools, scriptedToolCall } from '../../../src/index.js';
import { INVALID_LOOKUPS } from './support/lookup-cases.js';
import { orderStdio, runClerk } from './support/mcp-kit.js';

type Handle = Awaited<ReturnType<typeof mcpTools>>;
const stdio = orderStdio();
let handle: Handle;
let callsBefore = 0;
beforeAll(async () => {
  handle = await mcpTools(stdio.server);
});
afterAll(async () => {
  await handle.close();
});
beforeEach(() => {
  callsBefore = stdio.calls().length;
});
const newCalls = () => stdio.calls().slice(callsBefore);

/** Calls `lookup_order` once with `args` (JSON text when a string). */
async function lookup(args: unknown) {
  const { results, result } = await runClerk(handle.tools, [
    scriptedToolCall('lookup_order', args, 'call-1'),
  ]);
  expect(result.status).toBe('terminated');
  expect(results).toHaveLength(1);
  return results[0]!;
}

describe('mcpTools: arguments that match the schema', () => {
  it('reach the server exactly as the model sent them', async () => {
    const args = { orderId: 'A-100', priority: 'high', copies: 2, tags: ['gift'] };
    expect(await lookup(args)).toEqual({
      callId: 'call-1',
      name: 'lookup_order',
      content: 'Order A-100 is shipped (priority high, copies 2) [gift].',
      isError: false,
    });
    expect(newCalls()).toEqual([{ name: 'lookup_order', arguments: args }]);
  });

  // JSON Schema validation checks and never edits: keys the schema allows but does not list are
  // kept (no zod-style stripping), a `default` is not filled in, nothing is coerced.
  it('are not edited: unlisted keys kept, defaults not filled in', async () => {
    const { results } = await runClerk(handle.tools, [
      {
        toolCalls: [
          { id: 'k', name: 'cancel_order', arguments: '{"orderId":"A-9","reason":"duplicate"}' },
          { id: 'd', name: 'lookup_order', arguments: '{"orderId":"A-10"}' },
        ],
      },
    ]);
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['k', true], // cancel_order always answers with isError
      ['d', false],
    ]);
    expect(newCalls()).toEqual([
      { name: 'cancel_order', arguments: { orderId: 'A-9', reason: 'duplicate' } },
      { name: 'lookup_order', arguments: { orderId: 'A-10' } },
    ]);
  });

  it('pass a draft 2020-12 schema with $defs, $ref and format', async () => {
    const { results } = await runClerk(handle.tools, [
      scriptedToolCall('schedule_pickup', { slot: 'pm', day: '2026-11-24' }, 'call-p'),
    ]);
    expect(results).toEqual([
      { callId: 'call-p', name: 'schedule_pickup', content: 'Pickup booked: pm.', isError: false },
    ]);
    expect(newCalls()).toEqual([
      { name: 'schedule_pickup', arguments: { slot: 'pm', day: '2026-11-24' } },
    ]);
  });
});

describe('mcpTools: arguments that break the schema', () => {
  it.each(INVALID_LOOKUPS)(
    '%s is an error result naming the tool and the field; no call',
    async (_, args, field) => {
      const result = await lookup(args);
      expect(result).toMatchObject({ callId: 'call-1', name: 'lookup_order', isError: true });
      expect(result.content).toContain('lookup_order');
      expect(result.content).toContain(field);
      expect(newCalls()).toEqual([]);
    },
  );

  it('arguments that are not an object are rejected before the call', async () => {
    const result = await lookup('["A-1"]');
    expect(result).toMatchObject({ name: 'lookup_order', isError: true });
    expect(result.content).toContain('lookup_order');
    expect(newCalls()).toEqual([]);
  });

  it('arguments that are not JSON are rejected before the call', async () => {
    const result = await lookup('{"orderId": "A-1"');
    expect(result).toMatchObject({ name: 'lookup_order', isError: true });
    expect(result.content).toContain('lookup_order');
    expect(newCalls()).toEqual([]);
  });

  it('a $ref enum of a 2020-12 schema is enforced', async () => {
    const { results } = await runClerk(handle.tools, [
      scriptedToolCall('schedule_pickup', { slot: 'noon' }, 'call-p'),
    ]);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ callId: 'call-p', name: 'schedule_pickup', isError: true });
    expect(results[0]?.content).toContain('schedule_pickup');
    expect(results[0]?.content).toContain('slot');
    expect(newCalls()).toEqual([]);
  });

  it('in one response, only the valid calls reach the server; every call gets one result', async () => {
    const { results } = await runClerk(handle.tools, [
      {
        toolCalls: [
          { id: 'c1', name: 'lookup_order', arguments: '{"orderId":7}' },
          { id: 'c2', name: 'lookup_order', arguments: '{"orderId":"B-2","priority":"high"}' },
          { id: 'c3', name: 'schedule_pickup', arguments: '{}' },
        ],
      },
    ]);
    expect(results.map((r) => [r.callId, r.name, r.isError])).toEqual([
      ['c1', 'lookup_order', true],
      ['c2', 'lookup_order', false],
      ['c3', 'schedule_pickup', true],
    ]);
    expect(results[1]?.content).toBe('Order B-2 is shipped (priority high, copies 1).');
    expect(newCalls()).toEqual([
      { name: 'lookup_order', arguments: { orderId: 'B-2', priority: 'high' } },
    ]);
  });

  it('the model sees the error and the run goes on to its answer', async () => {
    const { client, result } = await runClerk(
      handle.tools,
      [
        scriptedToolCall('lookup_order', { order: 'A-1' }, 'call-bad'),
        scriptedToolCall('lookup_order', { orderId: 'A-1' }, 'call-good'),
        { content: 'Order A-1 has shipped.' },
      ],
      { maxToolIterations: 3 },
    );
    const toolMessages = client.calls[1]?.messages.filter((m) => m.role === 'tool') ?? [];
    expect(toolMessages).toHaveLength(1);
    expect(toolMessages[0]).toMatchObject({ role: 'tool', toolCallId: 'call-bad' });
    expect(toolMessages[0]?.content).toContain('lookup_order');
    expect(result.messages.at(-1)).toMatchObject({
      type: 'TextMessage',
      source: 'clerk',
      content: 'Order A-1 has shipped.',
    });
    expect(newCalls()).toEqual([{ name: 'lookup_order', arguments: { orderId: 'A-1' } }]);
  });
});
