import type { StopMessage, Usage } from '../messages/message.js';
import { stopMessage } from '../messages/message-factories.js';
import type { ModelCallPlan, ModelCallRefusal, SettledUsage } from './model-call.js';
import type { TerminationCondition } from './termination-condition.js';

// How the Or and And combinators judge a model call with their children (see
// `TerminationCondition.admitModelCall`): a child that let a call through holds what it may
// cost, so whenever the combinator refuses the call after all, those children release it.

/** An Or's verdict: refused when any child refuses. */
export function admitAny(
  conditions: readonly TerminationCondition[],
  call: ModelCallPlan,
): ModelCallRefusal | null {
  const admitted: TerminationCondition[] = [];
  const refusals: ModelCallRefusal[] = [];
  try {
    for (const c of conditions) {
      if (!c.limitsModelCalls) continue;
      const refusal = c.admitModelCall(call);
      if (refusal === null) admitted.push(c);
      else refusals.push(refusal);
    }
  } catch (error) {
    release(admitted, call);
    throw error;
  }
  if (refusals.length === 0) return null;
  release(admitted, call);
  return joinRefusals(refusals, []);
}

/**
 * An And's verdict: refused only when every child has fired (`fired`: their stops) or refuses,
 * that is when the And would fire.
 */
export function admitAll(
  conditions: readonly TerminationCondition[],
  call: ModelCallPlan,
  fired: readonly StopMessage[],
): ModelCallRefusal | null {
  const admitted: TerminationCondition[] = [];
  const refusals: ModelCallRefusal[] = [];
  let open = false;
  try {
    for (const c of conditions) {
      if (c.terminated) continue;
      const refusal = c.limitsModelCalls ? c.admitModelCall(call) : null;
      if (refusal !== null) {
        refusals.push(refusal);
      } else {
        open = true;
        if (c.limitsModelCalls) admitted.push(c);
      }
    }
  } catch (error) {
    release(admitted, call);
    throw error;
  }
  if (open || refusals.length === 0) return null;
  release(admitted, call);
  return joinRefusals(refusals, fired);
}

/** Tells every child that judges model calls that `call` has ended. */
export function settleChildren(
  conditions: readonly TerminationCondition[],
  call: ModelCallPlan,
  usage: SettledUsage,
): void {
  for (const c of conditions) if (c.limitsModelCalls) c.settleModelCall(call, usage);
}

/** Raises every child's budget; true when any had one. */
export function raiseChildren(
  conditions: readonly TerminationCondition[],
  amountUsd: number,
): boolean {
  let raised = false;
  for (const c of conditions) if (c.raiseBudget(amountUsd)) raised = true;
  return raised;
}

/** The first child's price of `call` (see `TerminationCondition.priceModelCall`). */
export function priceByChildren(
  conditions: readonly TerminationCondition[],
  call: ModelCallPlan,
  usage: Usage | undefined,
): number | undefined {
  for (const c of conditions) {
    const price = c.priceModelCall(call, usage);
    if (price !== undefined) return price;
  }
  return undefined;
}

function release(admitted: readonly TerminationCondition[], call: ModelCallPlan): void {
  for (const c of admitted) c.settleModelCall(call, null);
}

/**
 * Several refusals as one: the stops of `fired` then the refusals', joined with `", "` as the
 * combinators join stops; it asks only when every refusal asks.
 */
function joinRefusals(
  refusals: readonly ModelCallRefusal[],
  fired: readonly StopMessage[],
): ModelCallRefusal {
  const [only] = refusals;
  if (only !== undefined && refusals.length === 1 && fired.length === 0) return only;
  const stops = [...fired, ...refusals.map((r) => r.stop)];
  return {
    stop: stopMessage({
      source: stops.map((s) => s.source).join(', '),
      content: stops.map((s) => s.content).join(', '),
    }),
    ask: refusals.every((r) => r.ask),
  };
}
