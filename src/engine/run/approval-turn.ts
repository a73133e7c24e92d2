import type { AgentPause, AgentResponse } from '../../agents/chat-agent.js';
import { trippedReason } from '../../agents/guardrail.js';
import type { FunctionCall } from '../../messages/message.js';
import { untilAborted } from '../../until-aborted.js';
import { respondAs } from './agent-turn.js';
import { startedBy, turnStarts } from './tool-starts.js';
import { undecidedAfter } from './approval-decisions.js';
import { approvalOwners } from './group-pause.js';
import { groupStep } from './group-step.js';
import { announceSpeakers } from './speakers-listener.js';
import { checkInput, trippedEvent } from './guardrail-checks.js';
import type { TaskMessage, TaskResult } from '../runnable.js';
import type { SessionRun } from './session-run.js';
import type { PendingRequest, SessionState } from '../state/session-state.js';
import { threadOf } from '../state/state-thread.js';
import type { StopCheck } from './session-stop.js';
import { approvalPauseStep, decisionsStep } from '../state/step-changes.js';

/**
 * Input to a turn paused for approvals: only decisions (or a reply that rejects
 * them) continue it, and only the paused agent, whatever the routing. The input is one step; the
 * turn stays paused while calls are undecided (the decided ones run now), and goes on in the run's
 * loop once all are decided. Returns the run's result when the run ends here.
 */
export async function continuePausedTurn(
  run: SessionRun,
  taskMessages: readonly TaskMessage[],
): Promise<TaskResult | undefined> {
  const { host, options } = run;
  if (taskMessages.length === 0) {
    // A run cancelled while decided calls ran: they run again, the others still wait.
    if (host.state.status === 'cancelled') {
      await host.commit({ kind: 'resume', status: 'awaiting_input' });
      if (host.driver.meta(host.state.machineState).kind !== 'group') {
        await runDecided(run);
      } else {
        const ended = await groupStep(run, host.state, unfinishedMembers(host.state));
        if (ended !== undefined) return ended;
      }
    }
    return run.result('awaiting_input', null);
  }
  const state = host.state;
  const pending = pausedRequest(state);
  const undecided = undecidedAfter(host.id, pending, taskMessages);
  const guardrails = host.orchestration.guardrails?.input;
  const tripped = await checkInput(
    guardrails,
    host.id,
    threadOf(state),
    taskMessages,
    options.signal,
    state.data,
  );
  const check: StopCheck =
    tripped === null
      ? await untilAborted(host.checkStop(taskMessages), options.signal)
      : { stop: null, state: state.termination };
  const event = tripped === null ? undefined : trippedEvent(tripped);
  const reason = tripped !== null ? trippedReason(tripped) : check.stop?.content;
  const change = decisionsStep(pending, undecided, {
    task: taskMessages,
    tripped: event,
    check,
    stop:
      reason === undefined
        ? undefined
        : await host.stopChange(state.machineState, check.state, reason),
  });
  await host.commit(change);
  // The decisions given now are the start of their calls: those run, not in doubt.
  startedBy(run, taskMessages);
  const waits = change.status === 'awaiting_input';
  if (options.outputTaskMessages !== false) for (const m of taskMessages) run.emit(m);
  if (event !== undefined && tripped !== null) {
    run.emit(event);
    return run.result('terminated', trippedReason(tripped));
  }
  if (check.stop !== null) return run.result('terminated', check.stop.content);
  if (!waits) return undefined;
  if (host.driver.meta(state.machineState).kind === 'group') {
    // A paused group: the members whose calls were decided now go on (see `group-pause.ts`).
    const ended = await groupStep(run, host.state, decidedMembers(pending, undecided, state));
    if (ended !== undefined) return ended;
  } else if (undecided.length < (pending.calls ?? []).length) {
    await runDecided(run);
  }
  return run.result('awaiting_input', null);
}

/** The members of a paused group with a call decided by this input, in the request's order. */
function decidedMembers(
  pending: PendingRequest,
  undecided: readonly FunctionCall[],
  state: SessionState,
): string[] {
  const open = new Set(undecided.map((c) => c.id));
  const decided = (pending.calls ?? []).filter((c) => !open.has(c.id));
  const owners = approvalOwners(threadOf(state), decided);
  return [...new Set(decided.map((c) => owners.get(c.id) ?? pending.agent))];
}

/**
 * The members of a paused group with a decided call whose result is not recorded: a run was
 * cancelled while they ran it. A rare path, so it reads the thread rather than keeping a record.
 */
function unfinishedMembers(state: SessionState): string[] {
  const requested = new Map<string, FunctionCall>();
  const decided: string[] = [];
  const done = new Set<string>();
  for (const m of threadOf(state)) {
    if (m.type === 'ToolApprovalRequestEvent') for (const c of m.content) requested.set(c.id, c);
    else if (m.type === 'ToolApprovalResponseEvent') decided.push(m.callId);
    else if (m.type === 'ToolCallExecutionEvent') for (const r of m.content) done.add(r.callId);
  }
  const open = decided.flatMap((id) => {
    const call = done.has(id) ? undefined : requested.get(id);
    return call === undefined ? [] : [call];
  });
  const owners = approvalOwners(threadOf(state), open);
  return [...new Set(open.flatMap((c) => owners.get(c.id) ?? []))];
}

/** The request of a turn paused for approvals (see `pausedForApproval`). */
function pausedRequest(state: SessionState): PendingRequest {
  const pending = state.pendingRequest;
  if (pending === null) throw new Error('The session is not paused for approvals.');
  return pending;
}

/**
 * True when `state` is a turn paused for approvals: waiting for decisions, or cancelled while the
 * decided calls ran (the others still wait).
 */
export function pausedForApproval(state: SessionState): boolean {
  const kind = state.pendingRequest?.kind;
  return (
    (kind === 'approval' || kind === 'in_doubt') &&
    (state.status === 'awaiting_input' || state.status === 'cancelled')
  );
}

/**
 * Some calls of a paused turn were decided and others not: the paused agent runs the decided
 * ones now (one step), and the turn stays paused. A cancelled run records none of them: they
 * run again when the turn goes on.
 */
async function runDecided(run: SessionRun): Promise<void> {
  const { host } = run;
  const state = host.state;
  const agent = pausedRequest(state).agent;
  const streamed = new Set<string>();
  announceSpeakers(run.options, [agent], run.streamed);
  const response: AgentResponse | AgentPause = await respondAs(
    host,
    agent,
    state.machineState,
    state,
    run.options.signal,
    run.streamTo(streamed, run.emit),
    turnStarts(run, streamed),
  );
  if (!('approvalRequest' in response)) {
    throw new Error(
      `Agent "${agent}" answered while tool calls of its turn still await approval in session ` +
        `"${host.id}". Its takeTurn() must pause again until every call is decided.`,
    );
  }
  const request = response.approvalRequest;
  if (!inThread(state, request.id)) {
    // Calls found in doubt (a cancelled run left them so): the turn pauses for them instead.
    const change = approvalPauseStep(agent, state.machineState, response, [], {
      responders: [agent],
    });
    await host.commit(change);
    for (const m of change.append ?? []) if (!streamed.has(m.id)) run.emit(m);
    return;
  }
  const append = response.innerMessages.filter((m) => m !== request && m.id !== request.id);
  if (append.length === 0) return;
  await host.commit({ kind: 'decided', agent, append });
}

/** Whether the thread holds a message with this id (a rare path: it reads from the end). */
function inThread(state: SessionState, id: string): boolean {
  const thread = threadOf(state);
  for (let i = thread.length - 1; i >= 0; i--) if (thread.at(i)?.id === id) return true;
  return false;
}
