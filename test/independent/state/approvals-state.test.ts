// Independent suite for API.md §18 with §10: a tool that needs approval updates the state only when
// it runs (after approval), a rejected call changes nothing, and an app update made during the
// approval pause keeps the pause and is what the approved call sees. Written from API.md alone.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  approve,
  HandoffBuilder,
  MemoryCheckpointStore,
  reject,
  ScriptedChatClient,
  tool,
} from '../../../src/index.js';
import { call, ctxOf, Desk, type DeskState, INITIAL, lastMessage, stateOf } from './support.js';

function approvalDesk() {
  const seenByTool: unknown[] = [];
  const escalate = tool({
    name: 'escalate',
    description: 'Raises the priority.',
    parameters: z.object({}),
    needsApproval: true,
    execute: async (_args, raw) => {
      const ctx = ctxOf(raw);
      seenByTool.push(ctx.state);
      ctx.updateState((draft: DeskState) => {
        draft.priority = 'high';
      });
      return 'escalated';
    },
  });
  const clerk = new Agent({
    name: 'clerk',
    tools: [escalate],
    maxToolIterations: 3,
    client: new ScriptedChatClient((request) => {
      const last = lastMessage(request);
      if (last?.role === 'tool') return { content: `After: ${last.content}` };
      return { content: null, toolCalls: [call('escalate')] };
    }),
  });
  const workflow = new HandoffBuilder({
    name: 'approvals',
    participants: [clerk],
    state: { schema: Desk, initial: INITIAL },
  } as ConstructorParameters<typeof HandoffBuilder>[0])
    .coordinator(clerk)
    .withCheckpointing(new MemoryCheckpointStore())
    .build();
  return { workflow, seenByTool };
}

describe('state and approvals (API.md §18, §10)', () => {
  it('an approved call updates the state when it runs; an app update during the pause keeps it and is seen', async () => {
    const { workflow, seenByTool } = approvalDesk();
    const session = workflow.session('approved');
    const paused = await session.run('escalate please');
    expect(paused.pendingRequest!.kind).toBe('approval');
    expect(seenByTool).toEqual([]);
    expect(await stateOf(session).state()).toEqual(INITIAL);
    await stateOf(session).updateState((draft: DeskState) => {
      draft.customerId = 'C-50';
    });
    const info = await session.info();
    expect(info.status).toBe('awaiting_input');
    expect(info.pendingRequest).toEqual({
      id: paused.pendingRequest!.id,
      agent: 'clerk',
      prompt: paused.pendingRequest!.prompt,
      kind: 'approval',
      calls: paused.pendingRequest!.calls,
    });
    const done = await session.run(approve(paused.pendingRequest!.calls![0]!.id));
    expect(done.pendingRequest!.prompt).toBe('After: escalated');
    expect(seenByTool).toEqual([{ ...INITIAL, customerId: 'C-50' }]);
    expect(await stateOf(session).state()).toEqual({
      customerId: 'C-50',
      verified: false,
      priority: 'high',
    });
  });

  it('a rejected call changes nothing', async () => {
    const { workflow, seenByTool } = approvalDesk();
    const session = workflow.session('rejected');
    const paused = await session.run('escalate please');
    const done = await session.run(reject(paused.pendingRequest!.calls![0]!.id, 'no'));
    expect(done.pendingRequest!.prompt).toBe(
      'After: Tool call "escalate" was rejected by the user: no',
    );
    expect(seenByTool).toEqual([]);
    expect(await stateOf(session).state()).toEqual(INITIAL);
  });
});
