import type { StateProblem } from '../../agents/conversation-state.js';
import { CheckpointError } from '../../errors.js';

/** What a replayed log says of its conversation state, to judge a state the schema refuses. */
export interface StateTrail {
  /** The conversation state at the last snapshot, then after each step that changed it. */
  readonly patched: { readonly step: number; readonly data: unknown }[];
  readonly lastStep: number;
}

/**
 * The error for a stored session, written by this very workflow (its fingerprint, which covers the
 * state schema), whose conversation state the schema refuses: every committed update passed that
 * schema, so the log is damaged, a `CheckpointError` naming the first step that broke it.
 */
export function stateRefusal(
  sessionId: string,
  checked: { readonly problem: string; readonly path: string },
  trail: StateTrail,
  expected: { readonly stateProblem?: ((data: unknown) => StateProblem) | undefined },
): CheckpointError {
  {
    const problemOf = (data: unknown) => expected.stateProblem?.(data ?? {});
    const broken = trail.patched.find((p) => problemOf(p.data) !== undefined);
    const what =
      broken === undefined || broken === trail.patched[0] ? 'its state' : 'its state patch';
    const problem = broken === undefined ? undefined : problemOf(broken.data);
    return new CheckpointError(
      sessionId,
      broken?.step ?? trail.lastStep,
      `${what} breaks the state schema the session was written with, at ` +
        (problem?.text ?? checked.problem),
    );
  }
}
