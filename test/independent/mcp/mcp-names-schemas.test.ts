// API.md §12, independent black-box suite: what the model is told about MCP tools. Each tool keeps
// the server's name (with `prefix`: `<prefix>_<name>`), description and JSON Schema, and the model
// receives them unchanged; `include` and `exclude` pick tools by their server names.
import { afterEach, describe, expect, it } from 'vitest';

import { mcpTools, scriptedText, scriptedToolCall } from '../../../src/index.js';
import { orderStdio, runClerk } from './support/mcp-kit.js';
import {
  LOOKUP_ORDER_SCHEMA,
  ORDER_TOOLS,
  SCHEDULE_PICKUP_SCHEMA,
} from './support/order-tools.mjs';

type Handle = Awaited<ReturnType<typeof mcpTools>>;
const open: Handle[] = [];
async function connect(...args: Parameters<typeof mcpTools>): Promise<Handle> {
  const handle = await mcpTools(...args);
  open.push(handle);
  return handle;
}
afterEach(async () => {
  for (const handle of open.splice(0)) await handle.close();
});

const ALL_NAMES = ORDER_TOOLS.map((t) => t.name);
const modelView = (names: readonly string[], prefix = '') =>
  ORDER_TOOLS.filter((t) => names.includes(t.name)).map((t) => ({
    name: `${prefix}${t.name}`,
    description: t.description,
    parameters: t.inputSchema,
  }));

describe('mcpTools: names, descriptions and JSON Schemas', () => {
  it('makes one tool per server tool, with the server names in the server order', async () => {
    const handle = await connect(orderStdio().server);
    expect(handle.tools.map((t) => t.name)).toEqual(ALL_NAMES);
  });

  it('follows the listing across pages (nextCursor) to every tool', async () => {
    const handle = await connect(orderStdio(['--page-size', '3']).server);
    expect(handle.tools.map((t) => t.name)).toEqual(ALL_NAMES);
  });

  it('passes each name, description and JSON Schema to the model unchanged', async () => {
    const handle = await connect(orderStdio().server);
    const { client } = await runClerk(handle.tools, [scriptedText('Nothing to do.')]);
    const offered = client.calls[0]?.tools ?? [];
    const withoutDialect = ALL_NAMES.filter((n) => n !== 'schedule_pickup');
    expect(offered.filter((t) => t.name !== 'schedule_pickup')).toEqual(modelView(withoutDialect));
    expect(offered.find((t) => t.name === 'lookup_order')?.parameters).toEqual(LOOKUP_ORDER_SCHEMA);
  });

  // Kept apart: the schema declares draft 2020-12 in `$schema` and uses `$defs`/`$ref`.
  // "The model receives [it] unchanged" is read literally: `$schema` stays too.
  it('passes a draft 2020-12 schema with $schema, $defs and $ref unchanged', async () => {
    const handle = await connect(orderStdio().server, { include: ['schedule_pickup'] });
    const { client } = await runClerk(handle.tools, [scriptedText('Nothing to do.')]);
    expect(client.calls[0]?.tools).toEqual([
      {
        name: 'schedule_pickup',
        description: 'Books a courier pickup slot.',
        parameters: SCHEDULE_PICKUP_SCHEMA,
      },
    ]);
  });

  it('prefixes every name as <prefix>_<name> and keeps description and schema', async () => {
    const handle = await connect(orderStdio().server, { prefix: 'orders' });
    expect(handle.tools.map((t) => t.name)).toEqual(ALL_NAMES.map((n) => `orders_${n}`));
    const { client } = await runClerk(handle.tools, [scriptedText('Nothing to do.')]);
    const offered = client.calls[0]?.tools ?? [];
    expect(offered.find((t) => t.name === 'orders_lookup_order')).toEqual({
      name: 'orders_lookup_order',
      description: 'Looks up one order by its id and returns its status.',
      parameters: LOOKUP_ORDER_SCHEMA,
    });
  });

  it('calls the server tool by its own name when the model calls the prefixed name', async () => {
    const stdio = orderStdio();
    const handle = await connect(stdio.server, { prefix: 'orders' });
    const { results } = await runClerk(handle.tools, [
      scriptedToolCall('orders_lookup_order', { orderId: 'A-100' }, 'call-1'),
    ]);
    expect(results).toEqual([
      {
        callId: 'call-1',
        name: 'orders_lookup_order',
        content: 'Order A-100 is shipped (priority low, copies 1).',
        isError: false,
      },
    ]);
    expect(stdio.calls()).toEqual([{ name: 'lookup_order', arguments: { orderId: 'A-100' } }]);
  });

  it('keeps two servers with the same tool names apart by their prefixes', async () => {
    const north = orderStdio(['--name', 'north-desk']);
    const south = orderStdio(['--name', 'south-desk']);
    const a = await connect(north.server, { prefix: 'north', include: ['lookup_order'] });
    const b = await connect(south.server, { prefix: 'south', include: ['lookup_order'] });
    const { results } = await runClerk(
      [...a.tools, ...b.tools],
      [
        {
          toolCalls: [
            { id: 'n1', name: 'south_lookup_order', arguments: '{"orderId":"S-1"}' },
            { id: 'n2', name: 'north_lookup_order', arguments: '{"orderId":"N-1"}' },
          ],
        },
      ],
    );
    expect(results.map((r) => [r.name, r.content, r.isError])).toEqual([
      ['south_lookup_order', 'Order S-1 is shipped (priority low, copies 1).', false],
      ['north_lookup_order', 'Order N-1 is shipped (priority low, copies 1).', false],
    ]);
    expect(north.calls()).toEqual([{ name: 'lookup_order', arguments: { orderId: 'N-1' } }]);
    expect(south.calls()).toEqual([{ name: 'lookup_order', arguments: { orderId: 'S-1' } }]);
  });
});

describe('mcpTools: include and exclude', () => {
  it('include keeps only the named tools, and only they reach the model', async () => {
    const handle = await connect(orderStdio().server, {
      include: ['lookup_order', 'cancel_order'],
    });
    expect(handle.tools.map((t) => t.name)).toEqual(['lookup_order', 'cancel_order']);
    const { client } = await runClerk(handle.tools, [scriptedText('Nothing to do.')]);
    expect(client.calls[0]?.tools).toEqual(modelView(['lookup_order', 'cancel_order']));
  });

  it('exclude drops the named tools and keeps the rest in order', async () => {
    const dropped = ['explode', 'crash_server', 'wait_for_release'];
    const handle = await connect(orderStdio().server, { exclude: dropped });
    expect(handle.tools.map((t) => t.name)).toEqual(ALL_NAMES.filter((n) => !dropped.includes(n)));
  });

  it('an excluded tool called anyway is an error result and never reaches the server', async () => {
    const stdio = orderStdio();
    const handle = await connect(stdio.server, { exclude: ['explode'] });
    const { results, result } = await runClerk(handle.tools, [
      scriptedToolCall('explode', {}, 'call-x'),
    ]);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ callId: 'call-x', name: 'explode', isError: true });
    expect(results[0]?.content).toContain('explode');
    expect(result.status).toBe('terminated');
    expect(stdio.calls()).toEqual([]);
  });
});
