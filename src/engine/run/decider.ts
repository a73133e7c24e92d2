import { holdsRole, notApprover, type Principal, principalRecord } from '../../agents/approvers.js';
import type { TaskMessage } from '../runnable.js';
import type { SessionState } from '../state/session-state.js';

/**
 * The task of a run by `principal`, checked and signed: input to a request that waits for a role
 * (a tool's `approvers`) is refused unless the principal holds one; each decision records the
 * principal that made it in `metadata.principal`. Without a principal the decision is the
 * application's own: allowed, and recorded as given.
 * @throws ConfigError (path `principal`) before anything is committed.
 */
export function decidedBy(
  taskMessages: readonly TaskMessage[],
  principal: Principal | undefined,
  state: SessionState,
  sessionId: string,
): readonly TaskMessage[] {
  if (principal === undefined || taskMessages.length === 0) return taskMessages;
  const pending = state.pendingRequest;
  const waitingFor = pending?.waitingFor;
  const deciding = pending?.kind === 'approval' || pending?.kind === 'in_doubt';
  if (deciding && waitingFor !== undefined && !holdsRole(principal, waitingFor)) {
    throw notApprover(sessionId, principal, waitingFor);
  }
  const record = principalRecord(principal);
  return taskMessages.map((m) =>
    m.type === 'ToolApprovalResponseEvent'
      ? { ...m, metadata: { ...m.metadata, principal: record } }
      : m,
  );
}
