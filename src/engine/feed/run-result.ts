import type { AgentMessage } from '../../messages/message.js';
import type { StepView } from '../log/step-messages.js';
import { totalUsage } from '../run/task-messages.js';
import type { TaskResult } from '../runnable.js';
import type { PendingRequest } from '../state/session-state.js';

/**
 * The result of a run read back from its steps, the last of which ended it with `status` and
 * `pendingRequest`: the `TaskResult` the run returned (its stop reason is recorded by the step
 * that stopped it).
 */
export function resultOf(
  sessionId: string,
  steps: readonly StepView[],
  pendingRequest: PendingRequest | null,
  status: TaskResult['status'],
): TaskResult {
  const messages: AgentMessage[] = steps.flatMap((s) => s.messages);
  const recorded = steps.at(-1)?.stopReason;
  return {
    type: 'TaskResult',
    messages,
    stopReason: status === 'terminated' ? (recorded ?? oldStopReason(messages)) : null,
    status,
    ...(status === 'awaiting_input' && pendingRequest !== null
      ? {
          pendingRequest:
            pendingRequest.kind === undefined
              ? { ...pendingRequest, kind: 'input' }
              : pendingRequest,
        }
      : {}),
    sessionId,
    usage: totalUsage(messages),
  };
}

/** The stop reason of a run whose log predates recorded reasons, as far as its messages tell. */
function oldStopReason(messages: readonly AgentMessage[]): string | null {
  const last = messages.at(-1);
  if (last?.type === 'StopMessage') return last.content;
  if (last?.type === 'GuardrailTrippedEvent') return `Guardrail "${last.source}" tripped`;
  return null;
}
