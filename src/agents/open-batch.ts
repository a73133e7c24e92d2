import type {
  AgentMessage,
  FunctionCall,
  FunctionExecutionResult,
  ToolApprovalRequestEvent,
  ToolInDoubtEvent,
} from '../messages/message.js';
import type { Thread } from '../messages/thread.js';
import { type ApprovalDecision, decisionsAfter, isAnswer, rejectedResult } from './approvals.js';
import type { Tool } from './tool.js';

/** An event a turn pauses on: calls awaiting approval (§10), or calls in doubt (§17). */
export type PauseEvent = ToolApprovalRequestEvent | ToolInDoubtEvent;

/**
 * The batch of tool calls an agent's turn left open in the thread, and what each call without a
 * result is to get now that the turn goes on.
 */
export interface OpenBatch {
  /** Every call of the model answer, in the model's order. */
  readonly calls: readonly FunctionCall[];
  /** The results the thread has for them. */
  readonly results: ReadonlyMap<string, FunctionExecutionResult>;
  /** Results given without running: rejections, and results given by `resolve()`. */
  readonly fixed: Map<string, FunctionExecutionResult>;
  /** Calls a decision approved (the decision is their start): they run without asking again. */
  readonly approved: ReadonlySet<string>;
  /** `"once"` calls newly found in doubt: the turn pauses for them. */
  readonly doubts: readonly FunctionCall[];
  /** An event of the thread whose calls are not all decided yet: the turn stays paused on it. */
  readonly waiting: PauseEvent | undefined;
}

/**
 * The latest batch of `agent`'s tool calls in `thread` that has calls without results and no
 * answer of the agent after it, or `undefined`. `started` holds the calls whose start this run
 * committed (its decisions): an approved `"once"` call not among them without a result is in
 * doubt, as is a `"once"` call whose start (the batch's request in the thread) was committed.
 */
export function findOpenBatch(
  thread: Thread,
  agent: string,
  tools: ReadonlyMap<string, Tool>,
  started: ReadonlySet<string> | undefined,
): OpenBatch | undefined {
  let at = -1;
  for (let i = thread.length - 1; i >= 0; i--) {
    const m = thread.at(i);
    if (m === undefined || m.source !== agent) continue;
    if (isAnswer(m)) return undefined;
    if (m.type === 'ToolCallRequestEvent') {
      at = i;
      break;
    }
  }
  const request = at < 0 ? undefined : thread.at(at);
  if (request?.type !== 'ToolCallRequestEvent') return undefined;
  const index = thread.index();
  const calls = request.content;
  if (calls.every((c) => index.results.has(c.id))) return undefined;
  const results = new Map<string, FunctionExecutionResult>();
  for (const c of calls) {
    const r = index.results.get(c.id);
    if (r !== undefined) results.set(c.id, r);
  }
  const covering = coveringEvents(thread, at + 1, agent);
  const fixed = new Map<string, FunctionExecutionResult>();
  const approved = new Set<string>();
  const doubts: FunctionCall[] = [];
  let waiting: PauseEvent | undefined;
  for (const call of calls) {
    if (results.has(call.id)) continue;
    const cover = covering.get(call.id);
    const once = effectOf(call, tools) === 'once';
    const decision = cover?.decisions.get(call.id);
    if (cover !== undefined && decision === undefined) {
      waiting = cover.event;
    } else if (decision !== undefined && decision.result !== undefined) {
      fixed.set(call.id, {
        callId: call.id,
        name: call.name,
        content: decision.result,
        isError: false,
      });
    } else if (decision !== undefined && !decision.approved) {
      const doubted = cover?.event.type === 'ToolInDoubtEvent';
      fixed.set(
        call.id,
        doubted
          ? doubtRejectedResult(call, decision.reason)
          : rejectedResult(call, decision.reason),
      );
    } else if (decision !== undefined) {
      if (once && started?.has(call.id) !== true) doubts.push(call);
      else approved.add(call.id);
    } else if (once && tools.get(call.name)?.needsApproval !== true) {
      // A call that always asks first and was never asked never started (the
      // decision is its start): the turn asks for it again instead.
      doubts.push(call);
    }
  }
  return { calls, results, fixed, approved, doubts, waiting };
}

/** Per call: the latest pause event after `from` naming it, and the decisions given after it. */
function coveringEvents(
  thread: Thread,
  from: number,
  agent: string,
): Map<string, { event: PauseEvent; decisions: Map<string, ApprovalDecision> }> {
  const covering = new Map<
    string,
    { event: PauseEvent; decisions: Map<string, ApprovalDecision> }
  >();
  for (let i = from; i < thread.length; i++) {
    const m: AgentMessage | undefined = thread.at(i);
    if (m === undefined || m.source !== agent) continue;
    if (m.type !== 'ToolApprovalRequestEvent' && m.type !== 'ToolInDoubtEvent') continue;
    const ids = new Set(m.content.map((c) => c.id));
    const decisions = decisionsAfter(thread, i + 1, ids);
    for (const id of ids) covering.set(id, { event: m, decisions });
  }
  return covering;
}

/** A call's effect: its tool's (`"once"` when the tool does not say); `"read"` for no tool. */
export function effectOf(call: FunctionCall, tools: ReadonlyMap<string, Tool>): string {
  const found = tools.get(call.name);
  if (found === undefined) return 'read';
  return found.effect ?? 'once';
}

/** The error result of a call in doubt that the user chose not to run again. */
export function doubtRejectedResult(
  call: FunctionCall,
  reason: string | undefined,
): FunctionExecutionResult {
  return {
    callId: call.id,
    name: call.name,
    content: `Tool call "${call.name}" may or may not have completed; it was not retried${reason === undefined || reason === '' ? '' : `: ${reason}`}`,
    isError: true,
  };
}
