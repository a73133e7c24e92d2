import type { AgentPause, AgentResponse } from '../../agents/chat-agent.js';
import { type Tripped, trippedReason } from '../../agents/guardrail.js';
import type { AgentMessage } from '../../messages/message.js';
import { untilAborted } from '../../until-aborted.js';
import { respondAs, RunCancelled } from './agent-turn.js';
import { checkOutput, trippedEvent } from './guardrail-checks.js';
import {
  approvalOwners,
  groupApprovalRequest,
  memberPause,
  type PausedMember,
} from './group-pause.js';
import { announceSpeakers } from './speakers-listener.js';
import { serialStarts, turnStarts } from './tool-starts.js';
import type { GroupAnswer, ResponseRouting } from '../orchestration.js';
import type { TaskResult } from '../runnable.js';
import type { SessionRun } from './session-run.js';
import type { SessionState } from '../state/session-state.js';
import type { Step } from '../state/step.js';
import { threadOf } from '../state/state-thread.js';
import type { StopCheck } from './session-stop.js';
import { groupAnswerStep, trippedStep } from '../state/step-changes.js';

/**
 * One step of a `group` state: the participants the orchestration names (or `members`, the paused
 * members a decision lets go on) answer concurrently, each on the thread as it is now, and their
 * answers are committed together in the named order. Returns the run's result when the run ends
 * in this step.
 *
 * Members that pause for approvals pause the session as one request (see `group-pause.ts`); the
 * others' answers are committed with the pause, and the orchestration is told who is paused.
 */
export async function groupStep(
  run: SessionRun,
  state: SessionState,
  members?: readonly string[],
): Promise<TaskResult | undefined> {
  const { host, options } = run;
  const { orchestration, driver } = host;
  const { selectSpeakers, routeGroup } = orchestration;
  if (selectSpeakers === undefined || routeGroup === undefined) {
    throw new Error(
      `Workflow "${orchestration.name}" has a group state but no selectSpeakers() and routeGroup().`,
    );
  }
  let agents = members;
  if (agents === undefined) {
    const group = selectSpeakers.call(orchestration, state);
    if ('complete' in group) {
      await host.commit({
        kind: 'stop',
        complete: true,
        ...(await host.stopChange(state.machineState, state.termination, group.complete)),
      });
      return run.result('terminated', group.complete);
    }
    // Each answer is one turn: only as many members answer as turns remain.
    agents = group.agents.slice(0, Math.max(1, orchestration.maxTurns - state.turn));
  }
  const streamed = new Set<string>();
  announceSpeakers(options, agents, run.streamed);
  // Members' starts commit one after another.
  const starts = serialStarts(turnStarts(run, streamed));
  const settled = await Promise.allSettled(
    agents.map((agent) =>
      respondAs(
        host,
        agent,
        state.machineState,
        state,
        options.signal,
        run.streamTo(streamed),
        starts,
      ),
    ),
  );
  const responses: (AgentResponse | AgentPause)[] = [];
  for (const outcome of settled) {
    if (outcome.status === 'fulfilled') responses.push(outcome.value);
    else if (outcome.reason instanceof RunCancelled) return run.cancel();
  }
  const failure = settled.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failure !== undefined) throw failure.reason;

  const kind = state.pendingRequest?.kind;
  const pending = kind === 'approval' || kind === 'in_doubt' ? state.pendingRequest : null;
  const open = new Set((pending?.calls ?? []).map((c) => c.id));
  const paused = stillPaused(state, pending, agents);
  const append: AgentMessage[] = [];
  // What paused members did comes after the answers: the step ends with the requests.
  const pausing: AgentMessage[] = [];
  const answers: GroupAnswer[] = [];
  let tripped: Tripped | null = null;
  for (const [i, agent] of agents.entries()) {
    const response = responses[i] as AgentResponse | AgentPause;
    if ('approvalRequest' in response) {
      const pause = memberPause(agent, response, open);
      pausing.push(...pause.append);
      paused.push(pause.member);
      continue;
    }
    const inner = response.innerMessages ?? [];
    if (tripped === null) {
      tripped = await checkOutput(
        orchestration.guardrails?.output,
        host.id,
        agent,
        response.chatMessage,
        () => [...threadOf(state), ...inner, response.chatMessage],
        options.signal,
        host.turnData?.(),
      );
      if (tripped !== null) {
        // The answer is not recorded: only what led to it and the event.
        append.push(...inner, trippedEvent(tripped));
        continue;
      }
    }
    answers.push({ agent, response });
    append.push(...inner, response.chatMessage);
  }
  append.push(...pausing);
  const responders = answers.map((a) => a.agent);
  const pausedMembers = inRequestOrder(paused, pending);
  const pausedNames = pausedMembers.map((p) => p.agent);
  let routing: ResponseRouting | undefined;
  let routeError: unknown;
  try {
    if (answers.length > 0) routing = routeGroup.call(orchestration, answers, state, pausedNames);
  } catch (error) {
    // A routing that fails (a graph edge's `when` throws) does not lose the answers: they are
    // committed with the routing as it was, and the failure rejects the run after that.
    routeError = error;
  }
  const progress = routing?.progress === undefined ? {} : { progress: routing.progress };

  if (tripped !== null) {
    const reason = trippedReason(tripped);
    const stop = await host.stopChange(state.machineState, state.termination, reason);
    const change = trippedStep(tripped, append, stop, { responders, ...progress });
    await commitThenThrow(run, change, streamed, routeError);
    return run.result('terminated', trippedReason(tripped));
  }
  if (paused.length > 0) {
    const change: Step = {
      kind: 'pause',
      agents: pausedNames,
      append,
      // The group state itself: the orchestration's progress says who goes on once decided.
      machineState: state.machineState,
      pendingRequest: groupApprovalRequest(pausedMembers, pending),
      turn: 0,
      responders,
      ...progress,
      status: 'awaiting_input',
    };
    await commitThenThrow(run, change, streamed, routeError);
    return run.result('awaiting_input', null);
  }
  if (routing === undefined) {
    if (routeError !== undefined) {
      const kept: Step = { kind: 'answer', agents: responders, append, responders };
      await commitThenThrow(
        run,
        { ...kept, turn: state.turn + responders.length },
        streamed,
        routeError,
      );
    }
    throw new Error(`Workflow "${orchestration.name}" named nobody to answer in a group step.`);
  }

  const next = driver.next(state.machineState, routing.event);
  let check: StopCheck = { stop: null, state: state.termination };
  let conditionError: unknown;
  try {
    check = await untilAborted(host.checkStop(append, state.termination), options.signal);
  } catch (error) {
    // A check the signal interrupted is no verdict: the answers are redone by the next run.
    if (options.signal?.aborted === true) throw new RunCancelled();
    conditionError = error;
  }
  const waits = driver.meta(next).kind === 'input';
  const stop =
    check.stop === null ? undefined : await host.stopChange(next, check.state, check.stop.content);
  const change = groupAnswerStep(
    state,
    responders,
    append,
    routing,
    { state: next, waits },
    check,
    stop,
  );
  await commitThenThrow(run, change, streamed, conditionError);
  if (check.stop !== null) return run.result('terminated', check.stop.content);
  if (waits) return run.result('awaiting_input', null);
  return undefined;
}

/**
 * The members of a paused group that do not answer in this step (a decision let only some go on):
 * they stay paused with their calls, in the order of the group's request.
 */
function stillPaused(
  state: SessionState,
  pending: SessionState['pendingRequest'],
  answering: readonly string[],
): PausedMember[] {
  if (pending === null || pending.calls === undefined) return [];
  const owners = approvalOwners(threadOf(state), pending.calls);
  const byAgent = new Map<string, PausedMember['calls'][number][]>();
  for (const call of pending.calls) {
    const agent = owners.get(call.id) ?? pending.agent;
    if (answering.includes(agent)) continue;
    const calls = byAgent.get(agent) ?? [];
    calls.push(call);
    byAgent.set(agent, calls);
  }
  return [...byAgent].map(([agent, calls]) => ({ agent, calls }));
}

/** `paused` in the order of the group's request; members that paused anew after the others. */
function inRequestOrder(
  paused: readonly PausedMember[],
  pending: SessionState['pendingRequest'],
): PausedMember[] {
  const order = new Map((pending?.calls ?? []).map((c, i) => [c.id, i]));
  const rank = (m: PausedMember) =>
    Math.min(...m.calls.map((c) => order.get(c.id) ?? Number.POSITIVE_INFINITY));
  return [...paused].sort((a, b) => rank(a) - rank(b));
}

/** Commits `change` and records its messages; then rethrows `error`, if the step had one. */
async function commitThenThrow(
  run: SessionRun,
  change: Step,
  streamed: ReadonlySet<string>,
  error: unknown,
): Promise<void> {
  await run.host.commit(change);
  run.record(change.append ?? [], streamed);
  if (error !== undefined) throw error;
}
