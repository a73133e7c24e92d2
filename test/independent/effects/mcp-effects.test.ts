// Independent suite for API.md §17 (MCP): tools take their effect from the server's annotations
// (`readOnlyHint` → read, `idempotentHint` → idempotent, else once; readOnlyHint wins), and
// `mcpTools(server, { effect })` sets one effect for every tool of that server. Written from
// API.md alone, against a real Streamable HTTP MCP server built with the SDK (test/support).
// Readings where the page is open: the effect is observed through what it changes — a batch
// with a "once" call has the start commit `tool_calls_started:<agent>` and a cancelled "once"
// call is in doubt; "read" and "idempotent" calls have neither. (Read and idempotent differ in
// intent only, so one assertion covers both; the hint that wins is checked with
// readOnlyHint: true, idempotentHint: false, which only "readOnlyHint wins" maps to read.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { mcpTools, MemoryCheckpointStore, type McpTools } from '../../../src/index.js';
import { type HttpMcpTestServer, startHttpMcpServer } from '../../support/mcp-servers.js';
import { batchThenDone, calls, deskWorkflow } from './support.js';

const schema = { type: 'object', properties: {}, additionalProperties: false } as const;
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

let server: HttpMcpTestServer;
beforeAll(async () => {
  server = await startHttpMcpServer([
    {
      name: 'peek',
      inputSchema: schema,
      annotations: { readOnlyHint: true },
      answer: () => text('peeked'),
    },
    {
      name: 'put',
      inputSchema: schema,
      annotations: { idempotentHint: true },
      answer: () => text('put'),
    },
    {
      name: 'both',
      inputSchema: schema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      answer: () => text('both'),
    },
    {
      name: 'read_not_idem',
      inputSchema: schema,
      annotations: { readOnlyHint: true, idempotentHint: false },
      answer: () => text('read_not_idem'),
    },
    { name: 'send', inputSchema: schema, answer: () => text('sent') },
    {
      name: 'wipe',
      inputSchema: schema,
      annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: true },
      answer: () => text('wiped'),
    },
  ]);
});
afterAll(async () => {
  await server.stop();
});

const opened: McpTools[] = [];
afterAll(async () => {
  for (const t of opened) await t.close();
});

async function toolsOf(options?: Parameters<typeof mcpTools>[1]) {
  const tools = await mcpTools({ url: server.url }, options);
  opened.push(tools);
  return tools.tools;
}

/** The effect `name` gets from the server's annotations (and `options`). */
async function effectOf(name: string, options?: Parameters<typeof mcpTools>[1]) {
  return (await toolsOf(options)).find((t) => t.name === name)?.effect;
}

/** Whether a batch calling only `name` gets the start commit. */
async function startCommitted(name: string, options?: Parameters<typeof mcpTools>[1]) {
  const tools = await toolsOf(options);
  const { workflow } = deskWorkflow({
    tools,
    steps: batchThenDone(calls([`${name}-1`, name])),
    store: new MemoryCheckpointStore(),
  });
  const session = workflow.session(`mcp-${name}`);
  const result = await session.run(`use ${name}`);
  expect(result.status).toBe('awaiting_input');
  const events = (await session.checkpoints()).map((c) => c.event);
  return events.filter((e) => e.startsWith('tool_calls_started')).length;
}

describe('MCP annotations → effect (API.md §17)', () => {
  it('readOnlyHint → read: no start commit', async () => {
    expect(await startCommitted('peek')).toBe(0);
  });

  it('idempotentHint → idempotent: one start commit (so a resumed run keeps its callId)', async () => {
    expect(await effectOf('put')).toBe('idempotent');
    expect(await startCommitted('put')).toBe(1);
  });

  it('readOnlyHint and idempotentHint → read: no start commit', async () => {
    expect(await startCommitted('both')).toBe(0);
    expect(await startCommitted('read_not_idem')).toBe(0);
  });

  it('no annotations → once: one start commit', async () => {
    expect(await startCommitted('send')).toBe(1);
  });

  it('hints that are false (and destructiveHint) → once: one start commit', async () => {
    expect(await startCommitted('wipe')).toBe(1);
  });

  it('the server really was called each time', () => {
    const called = server.seen.filter((s) => s.startsWith('call ')).map((s) => s.split(' ')[1]);
    expect(called).toEqual(['peek', 'put', 'both', 'read_not_idem', 'send', 'wipe']);
  });
});

describe('mcpTools(server, { effect }) (API.md §17)', () => {
  it('effect "read" makes an unannotated tool read: no start commit', async () => {
    expect(await startCommitted('send', { effect: 'read' })).toBe(0);
  });

  it('effect "idempotent" makes an unannotated tool idempotent: one start commit', async () => {
    expect(await effectOf('send', { effect: 'idempotent' })).toBe('idempotent');
    expect(await startCommitted('send', { effect: 'idempotent' })).toBe(1);
  });

  it('effect "once" makes a read-only tool once: one start commit', async () => {
    expect(await startCommitted('peek', { effect: 'once' })).toBe(1);
  });
});
