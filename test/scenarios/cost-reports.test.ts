import { describe, expect, it } from 'vitest';

import { Agent } from '../../src/agents/agent.js';
import { routingText } from '../../src/cli/routing-table.js';
import { replay } from '../../src/engine/recording/replay.js';
import { MemoryCheckpointStore } from '../../src/checkpoint/memory-checkpoint-store.js';
import { approve } from '../../src/messages/message-factories.js';
import { ScriptedChatClient, scriptedText } from '../../src/models/scripted-chat-client.js';
import { HandoffBuilder } from '../../src/orchestrations/handoff/handoff-builder.js';
import { CostTermination } from '../../src/termination/cost-termination.js';
import { MaxMessageTermination } from '../../src/termination/budget-conditions.js';
import { evalRouting, orchestrationOf } from '../../src/testing/routing-eval.js';
import { costDesk, DESK_PRICES } from '../support/cost-desk.js';

// API.md §26: `replay()` and `baton eval routing` report what each conversation cost when the
// workflow's CostTermination prices its models.

/** A triage agent that hands off to billing, and billing that answers; each call 10 answer tokens. */
function routedDesk(prices: boolean) {
  const usage = { promptTokens: 100, completionTokens: 10 };
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient(
      () => ({
        content: null,
        toolCalls: [{ id: 'h1', name: 'handoff_to_billing', arguments: '{"reason":"refund"}' }],
        usage,
      }),
      { model: 'desk-model' },
    ),
    handoffs: ['billing'],
  });
  const billing = new Agent({
    name: 'billing',
    client: new ScriptedChatClient(() => scriptedText('Refund done.', usage), {
      model: 'other-model',
    }),
  });
  const builder = new HandoffBuilder({ participants: [triage, billing] }).coordinator('triage');
  return (
    prices
      ? builder.withTerminationCondition(
          new CostTermination({
            maxUsd: 100,
            prices: {
              ...DESK_PRICES,
              'other-model': { inputPerMillion: 1000, outputPerMillion: 0 },
            },
          }),
        )
      : builder.withTerminationCondition(new MaxMessageTermination(50))
  ).build();
}

describe('the cost of a conversation', () => {
  it('is in each case of a routing eval, and in its table, when the models have prices', async () => {
    const workflow = routedDesk(true);
    const report = await evalRouting(orchestrationOf(workflow), [
      { input: 'I want a refund', expect: 'billing' },
    ]);
    // triage: 10 answer tokens at $10,000 per million = $0.10; billing: 100 prompt tokens at
    // $1,000 per million = $0.10.
    expect(report.cases).toEqual([
      {
        input: 'I want a refund',
        expect: 'billing',
        actual: 'billing',
        calls: 2,
        tokens: { prompt: 200, completion: 20 },
        costUsd: 0.2,
      },
    ]);
    expect(routingText('desk', report, ['billing']).split('\n').slice(-3, -1)).toEqual([
      '#  expected  actual       calls  prompt  completion       cost  input',
      '1  billing   billing  ok      2     200          20  $0.200000  I want a refund',
    ]);
  });

  it('is absent from a routing eval without prices', async () => {
    const report = await evalRouting(orchestrationOf(routedDesk(false)), [
      { input: 'I want a refund', expect: 'billing' },
    ]);
    expect(report.cases[0]?.costUsd).toBeUndefined();
    expect(routingText('desk', report, ['billing'])).not.toContain('cost');
  });

  it('is in a replay report, at the workflow’s prices', async () => {
    const store = new MemoryCheckpointStore();
    const { workflow } = costDesk(store, 5, 3);
    const session = workflow.session('r1');
    await session.run('one');
    await session.run('two');
    const recording = await session.record();
    const report = await replay(costDesk(undefined, 5, 0).workflow, recording);
    expect(report).toEqual({ ok: true, turns: 2, costUsd: 0.2 });
    // A workflow without prices reports none.
    const plain = new HandoffBuilder({
      participants: [new Agent({ name: 'desk', client: new ScriptedChatClient([]) })],
    })
      .coordinator('desk')
      .build();
    expect(await replay(plain, recording)).toEqual({ ok: true, turns: 2 });
  });
});

describe('a recorded session with a budget request', () => {
  it('replays: the same call is refused, and the same decision raises the budget', async () => {
    const { workflow } = costDesk(new MemoryCheckpointStore(), 0.15, 3, 'ask');
    const session = workflow.session('rb1');
    await session.run('one');
    const paused = await session.run('two');
    await session.run(approve(paused.pendingRequest?.id ?? '', { amountUsd: 0.5 }));
    const recording = await session.record();
    expect(await replay(costDesk(undefined, 0.15, 0, 'ask').workflow, recording)).toEqual({
      ok: true,
      turns: 2,
      costUsd: 0.2,
    });
    // Without the budget request the same recording diverges: the second answer came too soon.
    const report = await replay(costDesk(undefined, 5, 0, 'ask').workflow, recording);
    expect([report.ok, report.divergence?.what]).toEqual([false, 'status']);
  });
});
