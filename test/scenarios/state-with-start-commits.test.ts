// API.md §17 and §18 together: a start commit is made in the middle of a turn. It takes the state
// updates the turn made so far (the results it commits made them), and the updates of the calls it
// starts go with the step after them. Before the fix, the start commit dropped the turn's updates.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  tool,
} from '../../src/index.js';

const State = z.object({ verified: z.boolean(), refunded: z.boolean() });

function desk() {
  const verify = tool({
    name: 'verify',
    parameters: z.object({}),
    effect: 'read',
    execute: (_args, ctx) => {
      ctx.updateState((draft) => {
        draft.verified = true;
      });
      return 'verified';
    },
  });
  const refund = tool({
    name: 'refund',
    parameters: z.object({}),
    execute: (_args, ctx) => {
      ctx.updateState((draft) => {
        draft.refunded = true;
      });
      return 'refunded';
    },
  });
  const billing = new Agent({
    name: 'billing',
    tools: [verify, refund],
    maxToolIterations: 3,
    client: new ScriptedChatClient([
      scriptedToolCall('verify'),
      scriptedToolCall('refund'),
      scriptedText('Done.'),
    ]),
  });
  return new HandoffBuilder({
    participants: [billing],
    state: { schema: State, initial: { verified: false, refunded: false } },
  })
    .coordinator(billing)
    .withCheckpointing(new MemoryCheckpointStore())
    .build();
}

describe('state updates around a start commit', () => {
  it('go with the start commit when made before it, and with the answer when made after', async () => {
    const workflow = desk();
    const session = workflow.session('s');
    await session.run('refund me');
    expect(await session.state()).toEqual({ verified: true, refunded: true });
    const steps = await session.checkpoints();
    expect(steps.map((s) => s.event)).toEqual([
      'user_input',
      'tool_calls_started:billing',
      'agent_response:billing',
    ]);
    // At the start commit, the read call of the first batch has run and its update is kept.
    const atStart = workflow.session('fork', { from: { session: 's', step: 2 } });
    expect(await atStart.state()).toEqual({ verified: true, refunded: false });
  });
});
