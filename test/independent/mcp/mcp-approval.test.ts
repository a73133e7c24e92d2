// API.md §12 `needsApproval` with §10: an MCP tool that needs approval pauses the run before the
// server is called; an approved call then reaches the server, a rejected one never does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  Agent,
  approve,
  mcpTools,
  reject,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
} from '../../../src/index.js';
import { executionResults, orderStdio } from './support/mcp-kit.js';

type Handle = Awaited<ReturnType<typeof mcpTools>>;
const stdio = orderStdio();
let handle: Handle;
beforeAll(async () => {
  handle = await mcpTools(stdio.server, { include: ['lookup_order'], needsApproval: true });
});
afterAll(async () => {
  await handle.close();
});

function team(steps: string[]) {
  const client = new ScriptedChatClient([
    scriptedToolCall('lookup_order', { orderId: 'V-1' }, 'v1'),
    ...steps.map((text) => scriptedText(text)),
  ]);
  const clerk = new Agent({ name: 'clerk', client, tools: handle.tools, maxToolIterations: 2 });
  return new RoundRobinGroupChat([clerk], { maxTurns: 1 });
}

describe('mcpTools({ needsApproval: true })', () => {
  it('still offers the tools under their names', () => {
    expect(handle.tools.map((t) => t.name)).toEqual(['lookup_order']);
  });

  it('pauses before the call; approved, the call reaches the server', async () => {
    const before = stdio.calls().length;
    const desk = team(['V-1 has shipped.']);
    const paused = await desk.run('Where is V-1?');
    expect(paused.status).toBe('awaiting_input');
    expect(paused.pendingRequest).toMatchObject({
      agent: 'clerk',
      kind: 'approval',
      calls: [{ id: 'v1', name: 'lookup_order', arguments: '{"orderId":"V-1"}' }],
    });
    expect(stdio.calls().length).toBe(before);

    const done = await desk.run(approve('v1'));
    expect(executionResults(done.messages)).toEqual([
      {
        callId: 'v1',
        name: 'lookup_order',
        content: 'Order V-1 is shipped (priority low, copies 1).',
        isError: false,
      },
    ]);
    expect(stdio.calls().slice(before)).toEqual([
      { name: 'lookup_order', arguments: { orderId: 'V-1' } },
    ]);
  });

  it('rejected, the call never reaches the server', async () => {
    const before = stdio.calls().length;
    const desk = team(['I may not look that up.']);
    await desk.run('Where is V-1?');
    const done = await desk.run(reject('v1', 'not today'));
    expect(executionResults(done.messages)).toEqual([
      {
        callId: 'v1',
        name: 'lookup_order',
        content: 'Tool call "lookup_order" was rejected by the user: not today',
        isError: true,
      },
    ]);
    expect(stdio.calls().length).toBe(before);
  });
});
