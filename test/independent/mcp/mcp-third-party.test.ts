// API.md §12, independent black-box suite against real third-party servers from npm, started with
// this node and their resolved bin script: @modelcontextprotocol/server-everything (echo, sum,
// image, a server-side error; killed mid-session) and @modelcontextprotocol/server-filesystem
// (reads a file this test wrote). What the model must receive is read with the SDK's own client.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';

import {
  Agent,
  mcpTools,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  type TextMessage,
} from '../../../src/index.js';
import {
  binEntry,
  childPids,
  executionResults,
  expectNamesServer,
  runClerk,
  waitUntilGone,
} from './support/mcp-kit.js';

const EVERYTHING = binEntry('@modelcontextprotocol/server-everything');
const FILESYSTEM = binEntry('@modelcontextprotocol/server-filesystem');
const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'] };

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

/** The tools a server lists, read with the SDK's own client. */
async function listWithSdk(args: string[]) {
  const client = new Client({ name: 'independent-suite', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }),
  );
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

describe('mcpTools with @modelcontextprotocol/server-everything', () => {
  const picked = ['echo', 'get-resource-reference', 'get-sum', 'get-tiny-image'];

  it('passes the listed names (prefixed), descriptions and schemas to the model unchanged', async () => {
    const listed = await listWithSdk([EVERYTHING, 'stdio']);
    const handle = await connect(everything, { include: picked, prefix: 'ev' });
    expect(handle.tools.map((t) => t.name)).toEqual(picked.map((n) => `ev_${n}`));
    const { client } = await runClerk(handle.tools, [scriptedText('Nothing to do.')]);
    expect(client.calls[0]?.tools).toEqual(
      listed
        .filter((t) => picked.includes(t.name))
        .map((t) => ({
          name: `ev_${t.name}`,
          description: t.description,
          parameters: t.inputSchema,
        })),
    );
  });

  it('echo, get-sum and get-tiny-image answer; bad arguments and a server error are error results', async () => {
    const handle = await connect(everything, { include: picked, prefix: 'ev' });
    const { results } = await runClerk(handle.tools, [
      {
        toolCalls: [
          { id: 'e', name: 'ev_echo', arguments: '{"message":"baton relay"}' },
          { id: 's', name: 'ev_get-sum', arguments: '{"a":2,"b":40}' },
          { id: 'i', name: 'ev_get-tiny-image', arguments: '{}' },
          { id: 'bad', name: 'ev_get-sum', arguments: '{"a":"2","b":40}' },
          { id: 'srv', name: 'ev_get-resource-reference', arguments: '{"resourceId":0}' },
        ],
      },
    ]);
    expect(results.slice(0, 2)).toEqual([
      { callId: 'e', name: 'ev_echo', content: 'Echo: baton relay', isError: false },
      { callId: 's', name: 'ev_get-sum', content: 'The sum of 2 and 40 is 42.', isError: false },
    ]);
    expect(results[2]).toMatchObject({ callId: 'i', name: 'ev_get-tiny-image', isError: false });
    expect(results[2]?.content).toMatch(
      /^Here's the image you requested:\s*\[image image\/png\]\s*The image above is the MCP logo\.$/,
    );
    expect(results[3]).toMatchObject({ callId: 'bad', name: 'ev_get-sum', isError: true });
    expect(results[3]?.content).toContain('ev_get-sum');
    expect(results[4]).toMatchObject({
      callId: 'srv',
      name: 'ev_get-resource-reference',
      isError: true,
    });
    expect(results[4]?.content).toContain(
      'Invalid resourceId: 0. Must be a finite positive integer.',
    );
    expect(results[4]?.content).toContain('ev_get-resource-reference');
  });

  it('killed mid-session: later calls are error results naming it and the team goes on', async () => {
    const before = childPids();
    const handle = await connect(everything, { include: ['echo'] });
    const started = childPids().filter((pid) => !before.includes(pid));
    expect(started).toHaveLength(1);
    const pid = started[0]!;

    const client = new ScriptedChatClient(async (_request, index) => {
      if (index === 0) return scriptedToolCall('echo', { message: 'before' }, 'before');
      if (index === 1) {
        process.kill(pid, 'SIGKILL');
        expect(await waitUntilGone(pid)).toBe(true);
        return scriptedToolCall('echo', { message: 'after' }, 'after');
      }
      return scriptedText('The echo server is gone; carrying on without it.');
    });
    const clerk = new Agent({ name: 'clerk', client, tools: handle.tools, maxToolIterations: 3 });
    const reviewer = new Agent({
      name: 'reviewer',
      client: new ScriptedChatClient([scriptedText('Noted.')]),
    });
    const result = await new RoundRobinGroupChat([clerk, reviewer], { maxTurns: 2 }).run(
      'Echo twice.',
    );
    expect(result.status).toBe('terminated');
    expect(result.stopReason).toBe('Maximum number of turns 2 reached.');
    const results = executionResults(result.messages);
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['before', false],
      ['after', true],
    ]);
    expect(results[0]?.content).toBe('Echo: before');
    expect(results[1]?.content).toContain('echo');
    expectNamesServer(results[1]!.content, ['mcp-servers/everything', EVERYTHING]);
    const texts = result.messages.filter((m): m is TextMessage => m.type === 'TextMessage');
    expect(texts.map((m) => [m.source, m.content])).toEqual([
      ['user', 'Echo twice.'],
      ['clerk', 'The echo server is gone; carrying on without it.'],
      ['reviewer', 'Noted.'],
    ]);
  });

  it('close() ends its child process', async () => {
    const before = childPids();
    const handle = await mcpTools(everything, { include: ['echo'] });
    const started = childPids().filter((pid) => !before.includes(pid));
    expect(started).toHaveLength(1);
    await handle.close();
    expect(childPids()).not.toContain(started[0]);
  });
});

describe('mcpTools with @modelcontextprotocol/server-filesystem', () => {
  it('reads a file the test wrote, and refuses a path outside its directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-mcp-fs-'));
    const file = join(dir, 'invoice-42.txt');
    writeFileSync(file, 'Invoice 42: 3 widgets, paid on 2026-11-02.\n');
    const handle = await connect(
      { command: process.execPath, args: [FILESYSTEM, dir] },
      { include: ['read_text_file'] },
    );
    expect(handle.tools.map((t) => t.name)).toEqual(['read_text_file']);
    const { results } = await runClerk(handle.tools, [
      {
        toolCalls: [
          { id: 'in', name: 'read_text_file', arguments: JSON.stringify({ path: file }) },
          { id: 'out', name: 'read_text_file', arguments: '{"path":"/etc/hostname"}' },
        ],
      },
    ]);
    expect(results[0]).toEqual({
      callId: 'in',
      name: 'read_text_file',
      content: 'Invoice 42: 3 widgets, paid on 2026-11-02.\n',
      isError: false,
    });
    expect(results[1]).toMatchObject({ callId: 'out', name: 'read_text_file', isError: true });
    expect(results[1]?.content).toContain('Access denied');
    expect(results[1]?.content).toContain('read_text_file');
  });
});
