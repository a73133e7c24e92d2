import { ConfigError } from '../errors.js';
import type {
  AgentMessage,
  FunctionCall,
  FunctionExecutionResult,
  ToolApprovalRequestEvent,
} from '../messages/message.js';
import type { MessageList, Thread } from '../messages/thread.js';
import { untilAborted } from '../until-aborted.js';
import type { Tool, ToolContext } from './tool.js';
import { prepareCall } from './tool-execution.js';

/** A user's decision on one call: approved, or rejected with an optional reason. */
export interface ApprovalDecision {
  readonly approved: boolean;
  readonly reason?: string;
}

/**
 * An agent's turn that paused for approvals and is now being continued: the calls of the model
 * answer that paused it, the results that answer already has, and the user's decisions.
 */
export interface PausedTurn {
  /** The event that paused the turn. */
  readonly request: ToolApprovalRequestEvent;
  /** Every call of the answer that paused, in the model's order. */
  readonly calls: readonly FunctionCall[];
  /** The results recorded before the pause (the calls that needed no approval). */
  readonly results: ReadonlyMap<string, FunctionExecutionResult>;
  /** The calls that awaited a decision. */
  readonly awaiting: ReadonlySet<string>;
  /** Per awaiting call: the decision, when one was given. */
  readonly decisions: ReadonlyMap<string, ApprovalDecision>;
}

/**
 * The turn of `agent` that `thread` shows paused for approvals, or `undefined`: the agent's latest
 * `ToolApprovalRequestEvent` whose calls have no results yet. The decisions are the
 * `ToolApprovalResponseEvent`s after it; a plain user message after it rejects every call left
 * undecided, with its text as the reason.
 */
export function findPausedTurn(thread: Thread, agent: string): PausedTurn | undefined {
  let at = -1;
  let request: ToolApprovalRequestEvent | undefined;
  for (let i = thread.length - 1; i >= 0; i--) {
    const m = thread.at(i);
    if (m?.type === 'ToolApprovalRequestEvent' && m.source === agent) {
      at = i;
      request = m;
      break;
    }
    // The agent answered after its last pause: nothing of it is pending.
    if (m !== undefined && m.source === agent && isAnswer(m)) return undefined;
  }
  if (request === undefined) return undefined;
  const index = thread.index();
  if (request.content.every((c) => index.results.has(c.id))) return undefined;
  const awaiting = new Set(request.content.map((c) => c.id));
  let calls: readonly FunctionCall[] = request.content;
  for (let i = at - 1; i >= 0; i--) {
    const m = thread.at(i);
    if (m?.type === 'ToolCallRequestEvent' && m.source === agent) {
      if (m.content.some((c) => awaiting.has(c.id))) calls = m.content;
      break;
    }
  }
  const results = new Map<string, FunctionExecutionResult>();
  for (const c of calls) {
    const r = index.results.get(c.id);
    if (r !== undefined) results.set(c.id, r);
  }
  return {
    request,
    calls,
    results,
    awaiting,
    decisions: decisionsAfter(thread, at + 1, awaiting),
  };
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
        decisions.set(
          m.callId,
          m.reason === undefined
            ? { approved: m.approved }
            : { approved: m.approved, reason: m.reason },
        );
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

function isAnswer(m: AgentMessage): boolean {
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
