// API.md §12 and §4, independent black-box suite: what a call of an MCP tool gives back. Text
// content is the result; other content becomes a short placeholder (`[image image/png]`); a result
// with `isError`, or a call the server fails with a JSON-RPC error, is an error result with a
// readable message naming the tool, and the server stays usable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { mcpTools, scriptedToolCall } from '../../../src/index.js';
import { orderStdio, runClerk } from './support/mcp-kit.js';
import { PNG_BASE64, WAV_BASE64 } from './support/order-tools.mjs';

type Handle = Awaited<ReturnType<typeof mcpTools>>;
const stdio = orderStdio();
let handle: Handle;
beforeAll(async () => {
  handle = await mcpTools(stdio.server, { exclude: ['crash_server', 'wait_for_release'] });
});
afterAll(async () => {
  await handle.close();
});

async function call(name: string, args: Record<string, unknown> = {}) {
  const { results } = await runClerk(handle.tools, [scriptedToolCall(name, args, `call-${name}`)]);
  expect(results).toHaveLength(1);
  expect(results[0]).toMatchObject({ callId: `call-${name}`, name });
  return results[0]!;
}

describe('mcpTools: results', () => {
  it('text content is the result, exactly', async () => {
    expect(await call('lookup_order', { orderId: 'Z-9', copies: 3 })).toEqual({
      callId: 'call-lookup_order',
      name: 'lookup_order',
      content: 'Order Z-9 is shipped (priority low, copies 3).',
      isError: false,
    });
  });

  it('an image alone becomes the placeholder [image image/png]', async () => {
    const result = await call('order_chart');
    expect(result.isError).toBe(false);
    expect(result.content).toBe('[image image/png]');
  });

  it('text then an image keeps both, in order, and never the image bytes', async () => {
    const result = await call('chart_with_caption');
    expect(result.isError).toBe(false);
    // How parts are joined is not specified; whitespace (or nothing) between them is accepted.
    expect(result.content).toMatch(/^Orders per day:\s*\[image image\/png\]$/);
    expect(result.content).not.toContain(PNG_BASE64.slice(0, 24));
  });

  it('two text blocks are both kept, in order', async () => {
    const result = await call('two_lines');
    expect(result.isError).toBe(false);
    expect(result.content).toMatch(/^First line\.\s*Second line\.$/);
  });

  // Read by analogy with `[image image/png]`: `[<type> <mimeType>]`.
  it('audio becomes the short placeholder [audio audio/wav]', async () => {
    const result = await call('voice_note');
    expect(result.isError).toBe(false);
    expect(result.content).not.toContain(WAV_BASE64.slice(0, 16));
    expect(result.content).toBe('[audio audio/wav]');
  });

  it('a result with isError is an error result with the server text and the tool name', async () => {
    const result = await call('cancel_order', { orderId: 'A-7' });
    expect(result.isError).toBe(true);
    expect(result.content).toContain('Order A-7 has shipped; it cannot be cancelled.');
    expect(result.content).toContain('cancel_order');
    expect(stdio.calls().at(-1)).toEqual({ name: 'cancel_order', arguments: { orderId: 'A-7' } });
  });

  it('a JSON-RPC error from the server is an error result naming the tool', async () => {
    const result = await call('explode');
    expect(result.isError).toBe(true);
    expect(result.content).toContain('the order database is on fire');
    expect(result.content).toContain('explode');
  });

  it('after error results the same server still answers', async () => {
    const { results, result } = await runClerk(
      handle.tools,
      [
        {
          toolCalls: [
            { id: 'e1', name: 'explode', arguments: '{}' },
            { id: 'e2', name: 'cancel_order', arguments: '{"orderId":"A-8"}' },
          ],
        },
        scriptedToolCall('lookup_order', { orderId: 'A-8' }, 'ok'),
        { content: 'A-8 could not be cancelled: it has shipped.' },
      ],
      { maxToolIterations: 3 },
    );
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['e1', true],
      ['e2', true],
      ['ok', false],
    ]);
    expect(results[2]?.content).toBe('Order A-8 is shipped (priority low, copies 1).');
    expect(result.status).toBe('terminated');
    expect(result.messages.at(-1)).toMatchObject({
      type: 'TextMessage',
      content: 'A-8 could not be cancelled: it has shipped.',
    });
  });
});
