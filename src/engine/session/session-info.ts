import type { CheckpointLink } from '../log/checkpoint-link.js';
import type { SessionInfo } from '../runnable.js';
import type { PendingRequest, SessionState } from '../state/session-state.js';

/**
 * What `session.info()` says of state `s`: running (a run holds it, here or elsewhere), or the
 * state's own status with its pending request and conversation state.
 */
export function infoOf(s: SessionState, running: boolean): SessionInfo {
  const status = running ? 'running' : s.status;
  const info: SessionInfo =
    status === 'awaiting_input' && s.pendingRequest !== null
      ? { status, pendingRequest: withKind(s.pendingRequest), step: s.step }
      : { status, step: s.step };
  return s.data === undefined ? info : { ...info, state: s.data };
}

/**
 * The state and whether another process runs the session. Another process may start and commit
 * between reading the state and reading the lease: the lease is read on both sides of the state
 * until the step holds still.
 */
export async function readRunning(
  link: CheckpointLink,
  first: SessionState,
  current: () => Promise<SessionState>,
): Promise<{ state: SessionState; running: boolean }> {
  let state = first;
  let running = false;
  for (let attempt = 0; attempt < 3 && !running; attempt++) {
    const before = await link.lease.runningElsewhere();
    const step = state.step;
    state = await current();
    running = before || (await link.lease.runningElsewhere());
    if (state.step === step) break;
  }
  return { state, running };
}

/** A pending request with its kind (sessions stored before approvals existed have none). */
function withKind(request: PendingRequest): PendingRequest {
  return request.kind === undefined ? { ...request, kind: 'input' } : request;
}
