import type { ChatMessage, FunctionCall, FunctionExecutionResult } from '../messages/message.js';
import { toolCallSummaryMessage } from '../messages/message-factories.js';
import type { TurnOffer } from './turn-offer.js';

const NONE: ReadonlySet<string> = new Set();

/**
 * The calls of an answer that deserve another model call even when the agent's tool iterations
 * are used up: a call to a tool that was not offered (a mistyped `handoff_to_biling`) and a
 * handoff whose brief failed. Left there, the turn would end with the error text as the agent's
 * answer, which a workflow shows the customer as the agent's question.
 */
export function retryableCalls(
  calls: readonly FunctionCall[],
  results: readonly FunctionExecutionResult[],
  offer: TurnOffer,
): ReadonlySet<string> {
  let ids: Set<string> | undefined;
  for (const r of results) {
    if (!r.isError) continue;
    const call = calls.find((c) => c.id === r.callId);
    if (call === undefined) continue;
    if (!offer.toolNames.has(call.name) || offer.handoffs.has(call.name))
      (ids ??= new Set()).add(r.callId);
  }
  return ids ?? NONE;
}

/**
 * The answer of a turn whose tool iterations are used up: the calls of its last model answer and
 * their results, the results' text as its content, without the errors of `retried` calls (a
 * mistyped tool, a failed brief), which are for the model, never the customer's question.
 */
export function summaryAnswer(
  agent: string,
  last: { calls: FunctionCall[]; results: FunctionExecutionResult[] } | undefined,
  retried: ReadonlySet<string>,
): ChatMessage {
  const { calls, results } = last ?? { calls: [], results: [] };
  const shown = retried.size === 0 ? results : results.filter((r) => !retried.has(r.callId));
  return toolCallSummaryMessage({
    source: agent,
    content: shown.map((r) => r.content).join('\n'),
    toolCalls: calls,
    results,
  });
}
