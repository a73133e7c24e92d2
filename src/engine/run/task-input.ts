import { trippedReason } from '../../agents/guardrail.js';
import { untilAborted } from '../../until-aborted.js';
import { undecidedAfter } from './approval-decisions.js';
import { checkInput, trippedEvent } from './guardrail-checks.js';
import type { TaskMessage, TaskResult } from '../runnable.js';
import type { SessionRun } from './session-run.js';
import type { StopCheck } from './session-stop.js';
import { inputStep } from '../state/step-changes.js';
import { threadOf } from '../state/state-thread.js';

/**
 * A new task given to a session that is not paused for approvals: routed into the machine,
 * checked by the input guardrails and the stop rule, and recorded as one step. Returns the run's
 * result when the run ends here (a tripped guardrail, a stop).
 */
export async function takeInput(
  run: SessionRun,
  taskMessages: readonly TaskMessage[],
): Promise<TaskResult | undefined> {
  const { host, options } = run;
  const { driver, orchestration } = host;
  // A decision while no approval is pending is refused before anything is committed.
  if (taskMessages.some((m) => m.type === 'ToolApprovalResponseEvent')) {
    undecidedAfter(
      host.id,
      null,
      taskMessages.filter((m) => m.type === 'ToolApprovalResponseEvent'),
    );
  }
  const state = host.state;
  const kind = driver.meta(state.machineState).kind;
  const machineState =
    kind === 'input' || kind === 'stopped'
      ? driver.next(state.machineState, orchestration.routeUserInput(state, taskMessages))
      : state.machineState;
  // Without guardrails, a stop rule or a store nothing here is awaited (each await is a tick).
  const guardrails = orchestration.guardrails?.input;
  const checkingInput = checkInput(
    guardrails,
    host.id,
    threadOf(state),
    taskMessages,
    options.signal,
    state.data,
  );
  const tripped = checkingInput === null ? null : await checkingInput;
  const checking: StopCheck | Promise<StopCheck> =
    tripped === null ? host.checkStop(taskMessages) : { stop: null, state: state.termination };
  const check =
    checking instanceof Promise ? await untilAborted(checking, options.signal) : checking;
  const reason = tripped !== null ? trippedReason(tripped) : check.stop?.content;
  const committing = host.commit(
    inputStep({
      task: taskMessages,
      machineState,
      progress: orchestration.progressOnInput?.(state),
      tripped: tripped === null ? undefined : trippedEvent(tripped),
      check,
      stop:
        reason === undefined ? undefined : await host.stopChange(machineState, check.state, reason),
    }),
  );
  if (committing !== undefined) await committing;
  if (options.outputTaskMessages !== false) for (const m of taskMessages) run.emit(m);
  if (tripped !== null) {
    const tripwire = threadOf(host.state).at(-1);
    if (tripwire !== undefined) run.emit(tripwire);
    return run.result('terminated', trippedReason(tripped));
  }
  if (check.stop !== null) return run.result('terminated', check.stop.content);
  return undefined;
}
