import type { TurnState } from '../../agents/turn-state.js';
import type { Step } from './step.js';

/**
 * `step` with the state updates of the turns that led to it, in turn order. A start
 * commit (§17) is made mid-turn: it takes the updates so far, and the turns go on.
 */
export function withTurnUpdates(step: Step, turns: readonly TurnState[]): Step {
  // Most steps follow no turn, and most turns change nothing: no array is made for them.
  if (turns.length === 0) return step;
  const only = turns.length === 1 ? turns[0]?.take() : undefined;
  if (only !== undefined && only.ops.length === 0) return step;
  const taken = only === undefined ? turns.map((t) => t.take()) : [only];
  const ops = taken.flatMap((t) => t.ops);
  if (ops.length === 0) return step;
  return {
    ...step,
    statePatch: [...(step.statePatch ?? []), ...ops],
    stateCalls: [...(step.stateCalls ?? []), ...taken.flatMap((t) => t.calls)],
  };
}
