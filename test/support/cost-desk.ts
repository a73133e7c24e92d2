// A support desk with a budget in money, for the cost tests and their child process: one agent
// whose every scripted call reports 10 answer tokens. At $10,000 per million answer tokens (a
// cent a token) and no charge for the prompt, each call costs and reserves exactly $0.10.
import { Agent } from '../../src/agents/agent.js';
import type { CheckpointStore } from '../../src/checkpoint/checkpoint-store.js';
import { ScriptedChatClient, scriptedText } from '../../src/models/scripted-chat-client.js';
import { HandoffBuilder } from '../../src/orchestrations/handoff/handoff-builder.js';
import { CostTermination } from '../../src/termination/cost-termination.js';

export const DESK_PRICES = { 'desk-model': { inputPerMillion: 0, outputPerMillion: 10_000 } };

/** The desk on `store`, its budget `maxUsd`; `answers` scripted answers, each of 10 tokens. */
export function costDesk(
  store: CheckpointStore | undefined,
  maxUsd: number,
  answers: number,
  onExhausted: 'stop' | 'ask' = 'stop',
) {
  const client = new ScriptedChatClient(
    Array.from({ length: answers }, (_, i) =>
      scriptedText(`answer ${i + 1}`, { promptTokens: 50, completionTokens: 10 }),
    ),
    { model: 'desk-model', maxCompletionTokens: 10 },
  );
  const builder = new HandoffBuilder({
    participants: [new Agent({ name: 'desk', client })],
  })
    .coordinator('desk')
    .withTerminationCondition(new CostTermination({ maxUsd, prices: DESK_PRICES, onExhausted }));
  const workflow = (store === undefined ? builder : builder.withCheckpointing(store)).build();
  return { workflow, client };
}
