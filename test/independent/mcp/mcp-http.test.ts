// API.md §12, independent black-box suite over Streamable HTTP, against an order-desk server this
// suite runs in-process on 127.0.0.1: headers, schemas, validation before the call, results, a
// slow call cancelled or cut by close(), and a server that went away.
import { afterEach, describe, expect, it } from 'vitest';

import {
  Agent,
  mcpTools,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
} from '../../../src/index.js';
import { executionResults, expectNamesServer, runClerk, until } from './support/mcp-kit.js';
import { type OrderHttpServer, startOrderHttpServer } from './support/order-http-server.js';
import { LOOKUP_ORDER_SCHEMA, ORDER_SERVER_NAME, ORDER_TOOLS } from './support/order-tools.mjs';

type Handle = Awaited<ReturnType<typeof mcpTools>>;
const handles: Handle[] = [];
const servers: OrderHttpServer[] = [];
async function serve(options?: Parameters<typeof startOrderHttpServer>[0]) {
  const server = await startOrderHttpServer(options);
  servers.push(server);
  return server;
}
async function connect(...args: Parameters<typeof mcpTools>): Promise<Handle> {
  const handle = await mcpTools(...args);
  handles.push(handle);
  return handle;
}
afterEach(async () => {
  for (const handle of handles.splice(0)) await handle.close();
  for (const server of servers.splice(0)) {
    server.release('released at teardown');
    await server.stop();
  }
});

describe('mcpTools over Streamable HTTP', () => {
  it('sends the given headers with every request', async () => {
    const server = await serve({ token: 's3cret' });
    const handle = await connect({
      url: server.url,
      headers: { authorization: 'Bearer s3cret' },
    });
    const { results } = await runClerk(handle.tools, [
      scriptedToolCall('lookup_order', { orderId: 'H-1' }, 'h'),
    ]);
    expect(results).toEqual([
      {
        callId: 'h',
        name: 'lookup_order',
        content: 'Order H-1 is shipped (priority low, copies 1).',
        isError: false,
      },
    ]);
    expect(server.authorizations.length).toBeGreaterThanOrEqual(3); // initialize, list, call
    expect(new Set(server.authorizations)).toEqual(new Set(['Bearer s3cret']));
  });

  it('a server refusing the connection (401) rejects mcpTools with an error naming its URL', async () => {
    const server = await serve({ token: 's3cret' });
    await expect(mcpTools({ url: server.url })).rejects.toThrow(server.url);
  });

  it('passes names (prefixed), descriptions and schemas to the model unchanged', async () => {
    const server = await serve();
    const handle = await connect(
      { url: server.url },
      { prefix: 'remote', include: ['lookup_order'] },
    );
    const { client } = await runClerk(handle.tools, [scriptedText('Nothing to do.')]);
    expect(client.calls[0]?.tools).toEqual([
      {
        name: 'remote_lookup_order',
        description: ORDER_TOOLS[0]?.description,
        parameters: LOOKUP_ORDER_SCHEMA,
      },
    ]);
  });

  it('validates before the call: only valid arguments reach the server', async () => {
    const server = await serve();
    const handle = await connect({ url: server.url }, { include: ['lookup_order'] });
    const { results } = await runClerk(handle.tools, [
      {
        toolCalls: [
          { id: 'bad', name: 'lookup_order', arguments: '{"orderId":"A-1","priority":"asap"}' },
          { id: 'good', name: 'lookup_order', arguments: '{"orderId":"A-1","priority":"high"}' },
        ],
      },
    ]);
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['bad', true],
      ['good', false],
    ]);
    expect(results[0]?.content).toContain('lookup_order');
    expect(results[0]?.content).toContain('priority');
    expect(results[1]?.content).toBe('Order A-1 is shipped (priority high, copies 1).');
    expect(server.calls).toEqual([
      { name: 'lookup_order', arguments: { orderId: 'A-1', priority: 'high' } },
    ]);
  });

  it('turns images into placeholders and isError results into error results', async () => {
    const server = await serve();
    const handle = await connect({ url: server.url });
    const { results } = await runClerk(handle.tools, [
      {
        toolCalls: [
          { id: 'img', name: 'order_chart', arguments: '{}' },
          { id: 'err', name: 'cancel_order', arguments: '{"orderId":"A-7"}' },
        ],
      },
    ]);
    expect(results[0]).toEqual({
      callId: 'img',
      name: 'order_chart',
      content: '[image image/png]',
      isError: false,
    });
    expect(results[1]).toMatchObject({ callId: 'err', name: 'cancel_order', isError: true });
    expect(results[1]?.content).toContain('Order A-7 has shipped; it cannot be cancelled.');
    expect(results[1]?.content).toContain('cancel_order');
  });

  it('a server that went away turns later calls into error results naming it; the run goes on', async () => {
    const server = await serve();
    const handle = await connect({ url: server.url }, { include: ['lookup_order'] });
    const client = new ScriptedChatClient(async (_request, index) => {
      if (index === 0) return scriptedToolCall('lookup_order', { orderId: 'A-1' }, 'before');
      if (index === 1) {
        await server.stop();
        return scriptedToolCall('lookup_order', { orderId: 'A-2' }, 'after');
      }
      if (index === 2) return scriptedToolCall('lookup_order', { orderId: 'A-3' }, 'again');
      return scriptedText('The remote desk is gone; I will note A-2 and A-3.');
    });
    const clerk = new Agent({ name: 'clerk', client, tools: handle.tools, maxToolIterations: 4 });
    const result = await new RoundRobinGroupChat([clerk], { maxTurns: 1 }).run('Check orders.');
    const results = executionResults(result.messages);
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['before', false],
      ['after', true],
      ['again', true],
    ]);
    for (const failed of results.slice(1)) {
      expect(failed.content).toContain('lookup_order');
      expectNamesServer(failed.content, [ORDER_SERVER_NAME, server.url]);
    }
    expect(result.status).toBe('terminated');
    expect(result.messages.at(-1)).toMatchObject({
      type: 'TextMessage',
      content: 'The remote desk is gone; I will note A-2 and A-3.',
    });
  });
});

describe('mcpTools over Streamable HTTP: a slow server', () => {
  it('a run cancelled during a slow call is cancelled; the next run uses the same connection', async () => {
    const server = await serve();
    // Read tools (API.md §17): the cancelled turn is redone; a "once" call would be in doubt.
    const handle = await connect(
      { url: server.url },
      { include: ['wait_for_release', 'lookup_order'], effect: 'read' },
    );
    const client = new ScriptedChatClient([
      scriptedToolCall('wait_for_release', {}, 'slow'),
      scriptedToolCall('lookup_order', { orderId: 'A-4' }, 'redo'),
    ]);
    const team = new RoundRobinGroupChat(
      [new Agent({ name: 'clerk', client, tools: handle.tools })],
      { maxTurns: 1 },
    );
    const controller = new AbortController();
    const running = team.run('Check A-4.', { signal: controller.signal });
    await server.waitingCall();
    controller.abort();
    const cancelled = await running;
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.stopReason).toBeNull();
    server.release('too late');

    const resumed = await team.run();
    expect(resumed.status).toBe('terminated');
    expect(executionResults(resumed.messages)).toEqual([
      {
        callId: 'redo',
        name: 'lookup_order',
        content: 'Order A-4 is shipped (priority low, copies 1).',
        isError: false,
      },
    ]);
  });

  it('a slow call answers with its text once the server answers', async () => {
    const server = await serve();
    const handle = await connect({ url: server.url }, { include: ['wait_for_release'] });
    const running = runClerk(handle.tools, [scriptedToolCall('wait_for_release', {}, 'slow')]);
    await server.waitingCall();
    server.release('Finally done.');
    const { results } = await running;
    expect(results).toEqual([
      { callId: 'slow', name: 'wait_for_release', content: 'Finally done.', isError: false },
    ]);
  });

  it('close() during a slow call ends that call with an error result; the run goes on', async () => {
    const server = await serve();
    const handle = await mcpTools({ url: server.url }, { include: ['wait_for_release'] });
    const running = runClerk(
      handle.tools,
      [scriptedToolCall('wait_for_release', {}, 'slow'), scriptedText('Gave up waiting.')],
      { maxToolIterations: 2 },
    );
    await server.waitingCall();
    await handle.close();
    const { results, result } = await running;
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ callId: 'slow', name: 'wait_for_release', isError: true });
    expect(results[0]?.content).toContain('wait_for_release');
    expect(result.messages.at(-1)).toMatchObject({
      type: 'TextMessage',
      content: 'Gave up waiting.',
    });
  });
});

describe('mcpTools over Streamable HTTP: a server that keeps a session', () => {
  it('calls its tools within the session', async () => {
    const server = await serve({ stateful: true });
    const handle = await connect({ url: server.url }, { include: ['lookup_order'] });
    const { results } = await runClerk(handle.tools, [
      scriptedToolCall('lookup_order', { orderId: 'S-1' }, 's'),
    ]);
    expect(results).toEqual([
      {
        callId: 's',
        name: 'lookup_order',
        content: 'Order S-1 is shipped (priority low, copies 1).',
        isError: false,
      },
    ]);
    expect(server.calls).toEqual([{ name: 'lookup_order', arguments: { orderId: 'S-1' } }]);
  });

  // §12 "close() ends the connection", read with the MCP transport spec: a client that no longer
  // needs a session sends DELETE to end it, and its open SSE stream (GET) is closed.
  it('close() ends the session with DELETE and closes the SSE stream', async () => {
    const server = await serve({ stateful: true });
    const handle = await mcpTools({ url: server.url });
    expect(server.methods).not.toContain('DELETE');
    await handle.close();
    expect(server.methods.filter((m) => m === 'DELETE')).toHaveLength(1);
    expect(await until(() => server.openStreams() === 0)).toBe(true);
  });
});
