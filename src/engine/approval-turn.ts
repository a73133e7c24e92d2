import type { AgentPause, AgentResponse } from '../agents/chat-agent.js';
import { trippedReason } from '../agents/guardrail.js';
import type { FunctionCall } from '../messages/message.js';
import { respondAs, RunCancelled } from './agent-turn.js';
import { undecidedAfter } from './approval-decisions.js';
import { approvalOwners } from './group-pause.js';
import { groupStep } from './group-step.js';
import { announceSpeakers } from './speakers-listener.js';
import { checkInput, trippedEvent } from './guardrail-checks.js';
import type { TaskMessage, TaskResult } from './runnable.js';
import type { SessionRun } from './session-run.js';
import type { PendingRequest, SessionState } from './session-state.js';
import { liveThread } from './thread-line.js';
import type { StopCheck } from './session-stop.js';
import { decisionsStep } from './step-changes.js';

/**
 * Input to a turn paused for approvals (API.md §10): only decisions (or a reply that rejects
 * them) continue it, and only the paused agent, whatever the routing. The input is one step; the
 * turn stays paused while calls are undecided (the decided ones run now), and goes on in the run's
 * loop once all are decided. Returns the run's result when the run ends here.
 */
export async function continuePausedTurn(
  run: SessionRun,
  taskMessages: readonly TaskMessage[],
): Promise<TaskResult | undefined> {
  const { host, options } = run;
  if (taskMessages.length === 0) return run.result('awaiting_input', null);
  const state = host.state;
  const pending = state.pendingRequest as PendingRequest;
  const undecided = undecidedAfter(host.id, pending, taskMessages);
  const guardrails = host.orchestration.guardrails?.input;
  const tripped = await checkInput(
    guardrails,
    host.id,
    liveThread(state),
    taskMessages,
    options.signal,
  );
  const check: StopCheck =
    tripped === null
      ? await host.checkStop(taskMessages)
      : { stop: null, state: state.termination };
  const event = tripped === null ? undefined : trippedEvent(tripped);
  const stops = tripped !== null || check.stop !== null;
  const change = decisionsStep(pending, undecided, {
    task: taskMessages,
    tripped: event,
    check,
    stop: stops ? await host.stopChange(state.machineState, check.state) : undefined,
  });
  await host.commit(change);
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
  const owners = approvalOwners(liveThread(state), decided);
  return [...new Set(decided.map((c) => owners.get(c.id) ?? pending.agent))];
}

/**
 * Some calls of a paused turn were decided and others not: the paused agent runs the decided
 * ones now (one step), and the turn stays paused. A cancelled run leaves them for later.
 */
async function runDecided(run: SessionRun): Promise<void> {
  const { host } = run;
  const state = host.state;
  const agent = (state.pendingRequest as PendingRequest).agent;
  const streamed = new Set<string>();
  let response: AgentResponse | AgentPause;
  try {
    announceSpeakers(run.options, [agent], run.streamed);
    response = await respondAs(
      host,
      agent,
      state.machineState,
      state,
      run.options.signal,
      run.streamTo(streamed, run.emit),
    );
  } catch (error) {
    if (error instanceof RunCancelled) return;
    throw error;
  }
  if (!('approvalRequest' in response)) {
    throw new Error(
      `Agent "${agent}" answered while tool calls of its turn still await approval in session ` +
        `"${host.id}". Its takeTurn() must pause again until every call is decided.`,
    );
  }
  const request = response.approvalRequest;
  const append = response.innerMessages.filter((m) => m !== request && m.id !== request.id);
  if (append.length === 0) return;
  await host.commit({ event: `approval_progress:${agent}`, append });
}
