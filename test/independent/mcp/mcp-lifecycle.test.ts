// API.md §12, independent black-box suite: the life of a stdio MCP server. A server that fails or
// exits turns each later call into an error result naming the server, and the run goes on;
// `close()` ends the connection and the child process (checked by its pid).
import { afterEach, describe, expect, it } from 'vitest';

import {
  Agent,
  HandoffBuilder,
  mcpTools,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  type TextMessage,
} from '../../../src/index.js';
import {
  childPids,
  executionResults,
  expectNamesServer,
  isRunning,
  ORDER_STDIO_SCRIPT,
  orderStdio,
  runClerk,
  until,
  waitUntilGone,
} from './support/mcp-kit.js';
import { ORDER_SERVER_NAME } from './support/order-tools.mjs';

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

/** The ways an error may name the stdio order-desk server: its own name or its script. */
const STDIO_NAMES = [ORDER_SERVER_NAME, ORDER_STDIO_SCRIPT];

describe('mcpTools: a server that exits', () => {
  it('in a handoff workflow, calls after the exit are error results naming it; the run goes on', async () => {
    const stdio = orderStdio(['--exit-after-first']);
    const orders = await connect(stdio.server, { include: ['lookup_order'] });
    const desk = new Agent({
      name: 'desk',
      client: new ScriptedChatClient([
        scriptedToolCall('handoff_to_clerk', {}, 'h1'),
        scriptedToolCall('handoff_to_clerk', {}, 'h2'),
      ]),
    });
    const clerk = new Agent({
      name: 'clerk',
      client: new ScriptedChatClient([
        scriptedToolCall('lookup_order', { orderId: 'A-1' }, 'c1'),
        scriptedToolCall('lookup_order', { orderId: 'A-2' }, 'c2'),
        scriptedToolCall('lookup_order', { orderId: 'A-3' }, 'c3'),
        scriptedText('A-1 has shipped; the order system is down for A-2 and A-3.'),
        scriptedToolCall('lookup_order', { orderId: 'A-2' }, 'c4'),
        scriptedText('Still down, sorry.'),
      ]),
      tools: orders.tools,
      maxToolIterations: 4,
    });
    const workflow = new HandoffBuilder({ participants: [desk, clerk] }).coordinator(desk).build();

    const first = await workflow.run('Where are my orders A-1, A-2 and A-3?');
    expect(first.status).toBe('awaiting_input');
    expect(first.pendingRequest).toMatchObject({
      agent: 'clerk',
      prompt: 'A-1 has shipped; the order system is down for A-2 and A-3.',
    });
    const results = executionResults(first.messages).filter((r) => r.name === 'lookup_order');
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['c1', false],
      ['c2', true],
      ['c3', true],
    ]);
    expect(results[0]?.content).toBe('Order A-1 is shipped (priority low, copies 1).');
    for (const failed of results.slice(1)) {
      expect(failed.content).toContain('lookup_order');
      expectNamesServer(failed.content, STDIO_NAMES);
    }
    expect(stdio.calls()).toEqual([{ name: 'lookup_order', arguments: { orderId: 'A-1' } }]);
    expect(await waitUntilGone(stdio.pid())).toBe(true);

    const second = await workflow.run('Please try A-2 again.');
    expect(second.status).toBe('awaiting_input');
    expect(second.pendingRequest).toMatchObject({ agent: 'clerk', prompt: 'Still down, sorry.' });
    const retry = executionResults(second.messages).filter((r) => r.name === 'lookup_order');
    expect(retry).toHaveLength(1);
    expect(retry[0]).toMatchObject({ callId: 'c4', isError: true });
    expectNamesServer(retry[0]!.content, STDIO_NAMES);
  });

  it('a server that dies mid-call fails that call and names itself on the next one', async () => {
    const stdio = orderStdio();
    const orders = await connect(stdio.server, { include: ['crash_server', 'lookup_order'] });
    const { results, result } = await runClerk(
      orders.tools,
      [
        scriptedToolCall('crash_server', {}, 'boom'),
        scriptedToolCall('lookup_order', { orderId: 'A-5' }, 'after'),
        scriptedText('The order desk is unavailable.'),
      ],
      { maxToolIterations: 3 },
    );
    expect(results.map((r) => [r.callId, r.name, r.isError])).toEqual([
      ['boom', 'crash_server', true],
      ['after', 'lookup_order', true],
    ]);
    expect(results[0]?.content).toContain('crash_server');
    expect(results[1]?.content).toContain('lookup_order');
    expectNamesServer(results[1]!.content, STDIO_NAMES);
    expect(result.status).toBe('terminated');
    expect(result.messages.at(-1)).toMatchObject({
      type: 'TextMessage',
      source: 'clerk',
      content: 'The order desk is unavailable.',
    });
  });

  // Whether the calls of one response run at once is not specified: either they are all waiting
  // when the server dies, or the later ones find it dead. Both must end as error results.
  it('a server that dies fails every call still waiting for it', async () => {
    const stdio = orderStdio();
    const orders = await connect(stdio.server, { include: ['wait_for_release', 'crash_server'] });
    const { results, result } = await runClerk(
      orders.tools,
      [
        {
          toolCalls: [
            { id: 'boom', name: 'crash_server', arguments: '{}' },
            { id: 'w1', name: 'wait_for_release', arguments: '{}' },
            { id: 'w2', name: 'wait_for_release', arguments: '{}' },
          ],
        },
        scriptedText('Everything failed.'),
      ],
      { maxToolIterations: 2 },
    );
    expect(results.map((r) => [r.callId, r.name, r.isError])).toEqual([
      ['boom', 'crash_server', true],
      ['w1', 'wait_for_release', true],
      ['w2', 'wait_for_release', true],
    ]);
    expect(results[1]?.content).toContain('wait_for_release');
    expect(results[2]?.content).toContain('wait_for_release');
    expect(result.messages.at(-1)).toMatchObject({
      type: 'TextMessage',
      content: 'Everything failed.',
    });
  });

  it('a team keeps taking turns after a participant lost its server', async () => {
    const stdio = orderStdio(['--exit-after-first']);
    const orders = await connect(stdio.server, { include: ['lookup_order'] });
    const clerk = new Agent({
      name: 'clerk',
      client: new ScriptedChatClient([
        scriptedToolCall('lookup_order', { orderId: 'A-1' }, 'c1'),
        scriptedToolCall('lookup_order', { orderId: 'A-2' }, 'c2'),
      ]),
      tools: orders.tools,
    });
    const reviewer = new Agent({
      name: 'reviewer',
      client: new ScriptedChatClient([scriptedText('Noted: the desk went away after A-1.')]),
    });
    const team = new RoundRobinGroupChat([clerk, reviewer], { maxTurns: 3 });
    const result = await team.run('Check A-1, then A-2.');
    expect(result.stopReason).toBe('Maximum number of turns 3 reached.');
    const results = executionResults(result.messages);
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['c1', false],
      ['c2', true],
    ]);
    expectNamesServer(results[1]!.content, STDIO_NAMES);
    const texts = result.messages.filter((m): m is TextMessage => m.type === 'TextMessage');
    expect(texts.map((m) => m.content)).toEqual([
      'Check A-1, then A-2.',
      'Noted: the desk went away after A-1.',
    ]);
  });
});

describe('mcpTools: close()', () => {
  it('ends the child process it started', async () => {
    const stdio = orderStdio();
    const handle = await mcpTools(stdio.server);
    const pid = stdio.pid();
    expect(childPids()).toContain(pid);
    expect(isRunning(pid)).toBe(true);
    await handle.close();
    expect(isRunning(pid)).toBe(false);
    expect(childPids()).not.toContain(pid);
  });

  it('ends a child that ignores SIGTERM and the end of its input', async () => {
    const stdio = orderStdio(['--stubborn']);
    const handle = await mcpTools(stdio.server);
    const pid = stdio.pid();
    expect(isRunning(pid)).toBe(true);
    await handle.close();
    // The last resort (SIGKILL) is delivered asynchronously; the pid must be gone right after.
    expect(await waitUntilGone(pid, 2000)).toBe(true);
  });

  it('a second close() resolves and changes nothing', async () => {
    const stdio = orderStdio();
    const handle = await mcpTools(stdio.server);
    const pid = stdio.pid();
    await handle.close();
    await expect(handle.close()).resolves.toBeUndefined();
    expect(isRunning(pid)).toBe(false);
  });

  it('close() during a call ends the child and turns that call into an error result', async () => {
    const stdio = orderStdio();
    const handle = await mcpTools(stdio.server, { include: ['wait_for_release'] });
    const pid = stdio.pid();
    const running = runClerk(
      handle.tools,
      [scriptedToolCall('wait_for_release', {}, 'slow'), scriptedText('Stopped waiting.')],
      { maxToolIterations: 2 },
    );
    expect(await until(() => stdio.calls().length === 1)).toBe(true);
    await handle.close();
    expect(isRunning(pid)).toBe(false);
    const { results, result } = await running;
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ callId: 'slow', name: 'wait_for_release', isError: true });
    expect(results[0]?.content).toContain('wait_for_release');
    expect(result.messages.at(-1)).toMatchObject({
      type: 'TextMessage',
      content: 'Stopped waiting.',
    });
  });

  it('a call after close() is an error result naming the tool, and the run goes on', async () => {
    const stdio = orderStdio();
    const handle = await mcpTools(stdio.server, { include: ['lookup_order'] });
    await handle.close();
    const { results, result } = await runClerk(
      handle.tools,
      [scriptedToolCall('lookup_order', { orderId: 'A-1' }, 'late'), scriptedText('Closed.')],
      { maxToolIterations: 2 },
    );
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ callId: 'late', name: 'lookup_order', isError: true });
    expect(results[0]?.content).toContain('lookup_order');
    expect(result.messages.at(-1)).toMatchObject({ type: 'TextMessage', content: 'Closed.' });
    expect(stdio.calls()).toEqual([]);
  });
});

describe('mcpTools: a healthy server that is noisy or talks first keeps answering', () => {
  it.each([
    ['prints a line that is not JSON-RPC just before each answer (one write)', ['--chatty']],
    ['prints an empty line just before each answer (one write)', ['--blank-line']],
    ['writes 256 kB to stderr before each answer', ['--stderr-kb', '256']],
    ['sends a log notification and a ping request before each answer', ['--talk-first']],
  ])('a server that %s', async (_, flags) => {
    const orders = await connect(orderStdio(flags).server, { include: ['lookup_order'] });
    const { results } = await runClerk(orders.tools, [
      {
        toolCalls: [1, 2, 3].map((i) => ({
          id: `c${i}`,
          name: 'lookup_order',
          arguments: `{"orderId":"A-${i}"}`,
        })),
      },
    ]);
    expect(results.map((r) => [r.callId, r.isError, r.content])).toEqual(
      [1, 2, 3].map((i) => [`c${i}`, false, `Order A-${i} is shipped (priority low, copies 1).`]),
    );
  });
});
