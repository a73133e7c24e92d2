import { ConfigError } from '../errors.js';
import type { AgentMessage, FunctionCall, FunctionExecutionResult } from '../messages/message.js';
import type { MessageList } from '../messages/thread.js';
import { untilAborted } from '../until-aborted.js';
import type { Tool, ToolContext } from './tool.js';
import { prepareCall } from './tool-execution.js';

/** A user's decision on one call: approved, or rejected with an optional reason. */
export interface ApprovalDecision {
  readonly approved: boolean;
  readonly reason?: string;
  /** Given by `resolve()` for a call in doubt: the call's result. */
  readonly result?: string;
}

/** The decisions given from `from` on for the `awaiting` calls (the first decision of each counts). */
export function decisionsAfter(
  thread: MessageList,
  from: number,
  awaiting: ReadonlySet<string>,
): Map<string, ApprovalDecision> {
  const decisions = new Map<string, ApprovalDecision>();
  for (let i = from; i < thread.length; i++) {
    const m = thread.at(i);
    if (m?.type === 'ToolApprovalResponseEvent') {
      if (awaiting.has(m.callId) && !decisions.has(m.callId)) {
        decisions.set(m.callId, {
          approved: m.approved,
          ...(m.reason === undefined ? {} : { reason: m.reason }),
          ...(m.result === undefined ? {} : { result: m.result }),
        });
      }
    } else if (m !== undefined && m.source === 'user' && isAnswer(m)) {
      const reason = m.type === 'TextMessage' ? m.content : undefined;
      for (const id of awaiting) {
        if (!decisions.has(id))
          decisions.set(
            id,
            reason === undefined ? { approved: false } : { approved: false, reason },
          );
      }
    }
  }
  return decisions;
}

/** True for a chat message: what ends an agent's turn in the thread. */
export function isAnswer(m: AgentMessage): boolean {
  return (
    m.type === 'TextMessage' ||
    m.type === 'StructuredMessage' ||
    m.type === 'HandoffMessage' ||
    m.type === 'ToolCallSummaryMessage' ||
    m.type === 'StopMessage'
  );
}

/** The error result of a call the user rejected. */
export function rejectedResult(
  call: FunctionCall,
  reason: string | undefined,
): FunctionExecutionResult {
  return {
    callId: call.id,
    name: call.name,
    content: `Tool call "${call.name}" was rejected by the user${reason === undefined || reason === '' ? '' : `: ${reason}`}`,
    isError: true,
  };
}

/**
 * Whether `call` waits for a person: its tool's `needsApproval`, given the validated arguments.
 * A call that cannot run anyway (unknown tool, bad arguments) needs no approval: it fails as usual.
 * A `needsApproval` function that throws makes the call an error result, returned instead; one
 * still pending when the turn's signal aborts rejects with the signal's reason.
 */
export async function approvalNeeded(
  call: FunctionCall,
  tools: ReadonlyMap<string, Tool>,
  context: Omit<ToolContext, 'callId' | 'updateState'>,
): Promise<boolean | FunctionExecutionResult> {
  const found = tools.get(call.name);
  if (found === undefined || found.needsApproval === false) return false;
  const prepared = prepareCall(tools, call, []);
  if (!prepared.ok) return false;
  if (found.needsApproval === true) return true;
  try {
    const needed = found.needsApproval(prepared.args, {
      ...context,
      callId: call.id,
      updateState: () => {
        throw new ConfigError(
          `Tool "${call.name}": needsApproval cannot update the state; update it in execute().`,
          { path: 'needsApproval' },
        );
      },
    });
    return (await untilAborted(needed, context.signal)) === true;
  } catch (error) {
    if (context.signal.aborted) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    return {
      callId: call.id,
      name: call.name,
      content: `Tool "${call.name}" could not decide whether the call needs approval: ${detail}`,
      isError: true,
    };
  }
}
