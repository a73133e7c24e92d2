// API.md §26: `onExhausted: "ask"` pauses with a request of kind "budget" instead of stopping;
// approving it raises the budget by the amount given (decision: approve(request id, {amountUsd})).
import { describe, expect, it } from 'vitest';

import {
  Agent,
  approve,
  CostTermination,
  HandoffBuilder,
  MemoryCheckpointStore,
  reject,
  ScriptedChatClient,
  scriptedText,
} from '../../../src/index.js';

const PRICES = { 'gpt-4.1-mini': { inputPerMillion: 0, outputPerMillion: 100 } };

function desk(store: MemoryCheckpointStore, answers: number) {
  const client = new ScriptedChatClient(
    Array.from({ length: answers }, (_, i) =>
      scriptedText(`reply ${i + 1}`, { promptTokens: 20, completionTokens: 1000 }),
    ),
    { model: 'gpt-4.1-mini' },
  );
  const workflow = new HandoffBuilder({ participants: [new Agent({ name: 'support', client })] })
    .coordinator('support')
    .withCheckpointing(store)
    .withTerminationCondition(
      new CostTermination({
        maxUsd: 0.1,
        prices: PRICES,
        reserveOutputTokens: 1000,
        onExhausted: 'ask',
      }),
    )
    .build();
  return { workflow, client };
}

describe('§26 onExhausted: "ask"', () => {
  it('asks for more instead of stopping, and an approval lets the session go on', async () => {
    const store = new MemoryCheckpointStore();
    const { workflow, client } = desk(store, 3);
    const session = workflow.session('ask-1');
    expect((await session.run('first')).status).toBe('awaiting_input');
    const paused = await session.run('second');
    expect(paused.status).toBe('awaiting_input');
    expect(paused.stopReason).toBeNull();
    expect(paused.pendingRequest?.kind).toBe('budget');
    expect(client.calls).toHaveLength(1);
    // The request is stored: another workflow object on the store sees it and decides it.
    const other = desk(store, 3);
    const info = await other.workflow.session('ask-1').info();
    expect(info.pendingRequest?.kind).toBe('budget');
    const resumed = await other.workflow
      .session('ask-1')
      .run(approve(info.pendingRequest?.id ?? '', { amountUsd: 0.1 }));
    expect(resumed.status).toBe('awaiting_input');
    expect(resumed.messages.some((m) => m.source === 'support' && m.content === 'reply 1')).toBe(
      true,
    );
    expect(other.client.calls).toHaveLength(1);
    // $0.20 now, $0.20 spent: the next call asks again.
    const again = await other.workflow.session('ask-1').run('third');
    expect(again.pendingRequest?.kind).toBe('budget');
    expect(again.pendingRequest?.prompt).toBe('Cost budget of $0.20 reached');
  });

  it('stops when the request is refused', async () => {
    const { workflow } = desk(new MemoryCheckpointStore(), 2);
    const session = workflow.session('ask-2');
    await session.run('first');
    const paused = await session.run('second');
    const stopped = await session.run(reject(paused.pendingRequest?.id ?? ''));
    expect([stopped.status, stopped.stopReason]).toEqual([
      'terminated',
      'Cost budget of $0.10 reached',
    ]);
  });
});
