import { CheckpointError } from '../../errors.js';
import { applyStep, type SessionState } from '../state/session-state.js';
import type { Step } from '../state/step.js';
import type { ExpectedWorkflow } from './session-log.js';

/**
 * `step` applied to `state` in a replay. A state patch that reaches outside the state, or that
 * breaks the schema of a state that met it, is the record's fault: `CheckpointError`.
 */
export function replayStep(
  sessionId: string,
  at: number,
  state: SessionState,
  step: Step,
  expected: ExpectedWorkflow,
): SessionState {
  let next: SessionState;
  try {
    next = applyStep(state, step).state;
  } catch (error) {
    throw new CheckpointError(
      sessionId,
      at,
      error instanceof Error ? error.message : String(error),
    );
  }
  if (step.statePatch === undefined || expected.stateProblem === undefined) return next;
  const problem = expected.stateProblem(next.data ?? {});
  if (problem !== undefined && expected.stateProblem(state.data ?? {}) === undefined) {
    throw new CheckpointError(
      sessionId,
      at,
      `its state patch breaks the state's schema at ${problem.text}`,
    );
  }
  return next;
}
