import { CheckpointError } from '../../errors.js';
import { applyStep, type SessionState } from '../state/session-state.js';
import type { Step } from '../state/step.js';

/**
 * `step` applied to `state` in a replay. A state patch that cannot apply (it reaches outside the
 * state, or is no add/remove/replace) is the record's fault: `CheckpointError`. The schema is
 * checked once, on the state the log leads to: a valid log whose state the workflow's schema
 * refuses (the schema changed) is a `ConfigError` naming the field, not corruption.
 */
export function replayStep(
  sessionId: string,
  at: number,
  state: SessionState,
  step: Step,
): SessionState {
  try {
    return applyStep(state, step).state;
  } catch (error) {
    throw new CheckpointError(
      sessionId,
      at,
      error instanceof Error ? error.message : String(error),
    );
  }
}
