import { ConfigError } from '../../errors.js';
import type { FunctionCall } from '../../messages/message.js';
import type { TaskMessage } from '../runnable.js';
import type { PendingRequest } from '../state/session-state.js';

/**
 * The calls of an approval request still undecided after `task`: each `ToolApprovalResponseEvent`
 * decides its call, and a chat message (a plain reply) decides every call left, as a rejection.
 *
 * @throws ConfigError before anything is committed: a decision for a call that is not pending
 *   (unknown, or decided twice), or a decision while no approval is pending.
 */
export function undecidedAfter(
  sessionId: string,
  pending: PendingRequest | null,
  task: readonly TaskMessage[],
): FunctionCall[] {
  const kind = pending?.kind;
  const calls = kind === 'approval' || kind === 'in_doubt' ? (pending?.calls ?? []) : [];
  const open = new Map(calls.map((c) => [c.id, c]));
  let replied = false;
  for (const m of task) {
    if (m.type !== 'ToolApprovalResponseEvent') {
      replied = true;
      continue;
    }
    if (m.result !== undefined && kind !== 'in_doubt' && open.has(m.callId)) {
      throw new ConfigError(
        `run(): resolve("${m.callId}") is only for a call in doubt; call "${m.callId}" awaits ` +
          'approval. Decide it with approve() or reject().',
        { path: 'task.result' },
      );
    }
    if (!open.has(m.callId)) {
      const awaiting = kind === 'in_doubt' ? 'in doubt' : 'awaiting approval';
      const waiting =
        calls.length === 0
          ? 'no tool call awaits approval'
          : `the calls ${awaiting} are ${calls.map((c) => `"${c.id}" (${c.name})`).join(', ')}`;
      const decided = calls.some((c) => c.id === m.callId) ? ' (it was decided twice)' : '';
      throw new ConfigError(
        `run(): session "${sessionId}" has no pending tool call "${m.callId}"${decided}; ${waiting}. ` +
          `Pass the id of a call from pendingRequest.calls to ${kind === 'in_doubt' ? 'approve(), reject() or resolve()' : 'approve() or reject()'}.`,
        { path: 'task.callId' },
      );
    }
    open.delete(m.callId);
  }
  return replied ? [] : [...open.values()];
}
