import type { StateProblem } from '../../agents/conversation-state.js';
import { CheckpointError, ConfigError } from '../../errors.js';

/** What a replayed log says of its conversation state, to judge a state the schema refuses. */
export interface StateTrail {
  /** The state schema digest of the snapshot the state comes from (undefined: not known). */
  readonly writtenWith: string | undefined;
  /** The conversation state at that snapshot, then after each step that changed it. */
  readonly patched: { readonly step: number; readonly data: unknown }[];
  readonly lastStep: number;
}

/**
 * The error for a stored session whose conversation state this workflow's schema refuses. Written
 * under this very schema (the snapshot's digest is the workflow's), every committed update passed
 * it, so the log is damaged: a `CheckpointError` naming the first step that broke it. Written under
 * another schema (or before digests were recorded), it is an incompatible change: a `ConfigError`
 * naming the field.
 */
export function stateRefusal(
  sessionId: string,
  checked: { readonly problem: string; readonly path: string },
  trail: StateTrail,
  expected: {
    readonly stateDigest?: string | undefined;
    readonly stateProblem?: ((data: unknown) => StateProblem) | undefined;
  },
): Error {
  if (trail.writtenWith !== undefined && trail.writtenWith === expected.stateDigest) {
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
  return new ConfigError(
    `Session "${sessionId}" cannot be resumed: ${checked.problem}. Resume it with a workflow ` +
      "whose state schema accepts it, or update the stored state's field.",
    { path: checked.path },
  );
}
