import type { AgentPause, AgentResponse } from '../agents/chat-agent.js';
import { type Tripped, trippedReason } from '../agents/guardrail.js';
import type { AgentMessage } from '../messages/message.js';
import { untilAborted } from '../until-aborted.js';
import { respondAs, RunCancelled } from './agent-turn.js';
import { checkOutput, trippedEvent } from './guardrail-checks.js';
import { announceSpeakers } from './speakers-listener.js';
import type { GroupAnswer } from './orchestration.js';
import type { TaskResult } from './runnable.js';
import type { SessionRun } from './session-run.js';
import type { SessionState } from './session-state.js';
import { liveThread } from './thread-line.js';
import type { StopCheck } from './session-stop.js';
import { approvalPauseStep, groupAnswerStep, trippedStep } from './step-changes.js';

/**
 * One step of a `group` state: the participants the orchestration names answer concurrently,
 * each on the thread as it is now, and their answers are committed together in the named order.
 * Returns the run's result when the run ends in this step.
 *
 * A member that pauses for approvals pauses the session (the others' answers are committed with
 * the pause); when two pause at once, the later ones are asked again once the first is decided.
 */
export async function groupStep(
  run: SessionRun,
  state: SessionState,
): Promise<TaskResult | undefined> {
  const { host, options } = run;
  const { orchestration, driver } = host;
  const { selectSpeakers, routeGroup } = orchestration;
  if (selectSpeakers === undefined || routeGroup === undefined) {
    throw new Error(
      `Workflow "${orchestration.name}" has a group state but no selectSpeakers() and routeGroup().`,
    );
  }
  const group = selectSpeakers.call(orchestration, state);
  if ('complete' in group) {
    await host.commit({
      event: 'complete',
      ...(await host.stopChange(state.machineState, state.termination)),
    });
    return run.result('terminated', group.complete);
  }
  // Each answer is one turn: only as many members answer as turns remain.
  const agents = group.agents.slice(0, Math.max(1, orchestration.maxTurns - state.turn));
  const streamed = new Set<string>();
  announceSpeakers(options, agents, run.streamed);
  const settled = await Promise.allSettled(
    agents.map((agent) =>
      respondAs(host, agent, state.machineState, state, options.signal, run.streamTo(streamed)),
    ),
  );
  const responses: (AgentResponse | AgentPause)[] = [];
  for (const outcome of settled) {
    if (outcome.status === 'fulfilled') responses.push(outcome.value);
    else if (outcome.reason instanceof RunCancelled) return run.cancel();
  }
  const failure = settled.find((o) => o.status === 'rejected');
  if (failure !== undefined) throw (failure as PromiseRejectedResult).reason;

  const append: AgentMessage[] = [];
  const answers: GroupAnswer[] = [];
  let paused: { agent: string; pause: AgentPause } | undefined;
  let tripped: Tripped | null = null;
  for (const [i, agent] of agents.entries()) {
    const response = responses[i] as AgentResponse | AgentPause;
    if ('approvalRequest' in response) {
      paused ??= { agent, pause: response };
      continue;
    }
    const inner = response.innerMessages ?? [];
    if (tripped === null) {
      tripped = await checkOutput(
        orchestration.guardrails?.output,
        host.id,
        agent,
        response.chatMessage,
        () => [...liveThread(state), ...inner, response.chatMessage],
        options.signal,
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
  const responders = answers.map((a) => a.agent);
  const routing = answers.length === 0 ? undefined : routeGroup.call(orchestration, answers, state);
  const progress = routing?.progress === undefined ? {} : { progress: routing.progress };

  if (tripped !== null) {
    const stop = await host.stopChange(state.machineState, state.termination);
    const change = trippedStep(tripped, append, stop, { responders, ...progress });
    await host.commit(change);
    run.record(change.append ?? [], streamed);
    return run.result('terminated', trippedReason(tripped));
  }
  if (paused !== undefined) {
    const { agent, pause } = paused;
    const speaking = driver.agentState(agent);
    if (speaking === undefined) {
      throw new Error(
        `Workflow "${orchestration.name}" has no state where "${agent}" alone speaks, so its ` +
          'turn cannot pause for approvals.',
      );
    }
    const change = approvalPauseStep(agent, speaking, pause, append, { responders, ...progress });
    await host.commit(change);
    run.record(change.append ?? [], streamed);
    return run.result('awaiting_input', null);
  }
  if (routing === undefined) {
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
  const stop = check.stop === null ? undefined : await host.stopChange(next, check.state);
  const change = groupAnswerStep(
    state,
    responders,
    append,
    routing,
    { state: next, waits },
    check,
    stop,
  );
  await host.commit(change);
  run.record(append, streamed);
  if (conditionError !== undefined) throw conditionError;
  if (check.stop !== null) return run.result('terminated', check.stop.content);
  if (waits) return run.result('awaiting_input', null);
  return undefined;
}
