import type { ChatMessage, FunctionCall, FunctionExecutionResult } from '../messages/message.js';
import { toolCallSummaryMessage } from '../messages/message-factories.js';
import type { TurnOffer } from './turn-offer.js';

const NONE: ReadonlySet<string> = new Set();

/**
 * The calls of an answer that deserve another model call even when the agent's tool iterations
 * are used up: a call to a tool the agent does not have (not `known`: neither offered before
 * guards nor a handoff a guard withholds; a mistyped `handoff_to_biling`) and a handoff of `offer`
 * whose brief failed. Left there, the turn would end with the error text as the agent's
 * answer, which a workflow shows the customer as the agent's question.
 */
export function retryableCalls(
  calls: readonly FunctionCall[],
  results: readonly FunctionExecutionResult[],
  offer: TurnOffer,
  known: (name: string) => boolean,
): ReadonlySet<string> {
  let ids: Set<string> | undefined;
  for (const r of results) {
    if (!r.isError) continue;
    const call = calls.find((c) => c.id === r.callId);
    // A handoff withheld by a guard is known: its error result is the whole answer to it.
    if (call !== undefined && (!known(call.name) || offer.handoffs.has(call.name))) {
      (ids ??= new Set()).add(r.callId);
    }
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

/**
 * Whether a tool name is one the agent has: in `allowed` (its offer before guards), or the
 * handoff to a target that `guards` withhold now.
 */
export function knownTools(
  allowed: TurnOffer,
  guards: ReadonlyMap<string, unknown> | undefined,
): (name: string) => boolean {
  return (name) =>
    allowed.toolNames.has(name) ||
    (guards !== undefined && name.startsWith('handoff_to_') && guards.has(name.slice(11)));
}
