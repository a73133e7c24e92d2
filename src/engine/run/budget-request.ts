import { ConfigError } from '../../errors.js';
import type { ToolApprovalResponseEvent } from '../../messages/message.js';
import { userInputRequestedEvent } from '../../messages/message-factories.js';
import { untilAborted } from '../../until-aborted.js';
import type { TaskMessage, TaskResult } from '../runnable.js';
import type { PendingRequest, SessionState } from '../state/session-state.js';
import { RefusedTurn } from './model-gate.js';
import type { SessionRun } from './session-run.js';

// A model call refused before it was made (a budget in money) and the `"budget"` request it may
// cause: the step that records the refusal, and the decision that answers the request.

export { RefusedTurn };

/** True when `state` waits on a `"budget"` request. */
export function pausedForBudget(state: SessionState): boolean {
  return state.pendingRequest?.kind === 'budget' && state.status === 'awaiting_input';
}

/**
 * Records a turn whose model call was refused: what it did before the call, then a stop (the
 * refusal's reason) or, when the refusal asks, a `"budget"` request in the agent's state.
 */
export async function refusedTurn(run: SessionRun, refused: RefusedTurn): Promise<TaskResult> {
  const { host } = run;
  const { agent, speaking, refusal } = refused;
  const append = refused.innerMessages;
  // The turn's events reached the stream as it ran: they are kept for the result, not resent.
  const streamed = new Set(append.map((m) => m.id));
  if (refusal.ask) {
    // Named by the step that asks (unique in the session): a replay asks at the same step, so a
    // recorded decision names its request again, which a fresh id would not.
    const pendingRequest: PendingRequest = {
      id: `budget-${host.state.step + 1}`,
      agent,
      prompt: refusal.stop.content,
      kind: 'budget',
    };
    // The thread shows the request, as it shows a question to the user.
    const asked = userInputRequestedEvent({
      source: agent,
      requestId: pendingRequest.id,
      content: pendingRequest.prompt,
    });
    await host.commit({
      kind: 'budget',
      agent,
      append: [...append, asked],
      machineState: speaking,
      pendingRequest,
      turn: 0,
      status: 'awaiting_input',
    });
    run.record([...append, asked], streamed);
    return run.result('awaiting_input', null);
  }
  const stop = await host.stopChange(speaking, host.state.termination, refusal.stop.content);
  await host.commit({ kind: 'budget', agent, append, pendingRequest: null, ...stop });
  run.record(append, streamed);
  return run.result('terminated', refusal.stop.content);
}

/**
 * Input to a session waiting on a `"budget"` request. No input: the same request, nothing run.
 * A decision on it: approved with `amountUsd`, the budget is raised and the agent's turn goes on
 * (returns undefined: the run continues); refused, the session stops with the request's reason.
 * Other messages are recorded (and checked by the stop rule) while the request stays open.
 *
 * @throws ConfigError before anything is committed: a decision on anything but this request, or
 *   an approval without a positive `amountUsd`.
 */
export async function continueAfterBudget(
  run: SessionRun,
  task: readonly TaskMessage[],
): Promise<TaskResult | undefined> {
  const { host, options } = run;
  const state = host.state;
  const pending = state.pendingRequest;
  if (task.length === 0 || pending === null) return run.result('awaiting_input', null);
  const decision = decisionOf(host.id, pending, task);
  const check = await untilAborted(Promise.resolve(host.checkStop(task)), options.signal);
  let termination = check.state;
  let reason = check.stop === null ? null : check.stop.content;
  if (reason === null && decision !== undefined) {
    // Approved: the budgets are raised (a request another limit made has none here to raise).
    const gate = decision.approved ? host.modelGate?.() : undefined;
    if (gate?.raise !== undefined) {
      termination = await gate.raise(decision.amountUsd ?? 0, termination);
    }
    if (!decision.approved) reason = pending.prompt;
  }
  const stops = reason !== null;
  const goesOn = !stops && decision !== undefined;
  await host.commit({
    kind: 'input',
    append: task,
    pendingRequest: goesOn || stops ? null : pending,
    status: goesOn ? 'idle' : 'awaiting_input',
    termination,
    ...(reason !== null ? await host.stopChange(state.machineState, termination, reason) : {}),
  });
  if (options.outputTaskMessages !== false) for (const m of task) run.emit(m);
  if (reason !== null) return run.result('terminated', reason);
  return goesOn ? undefined : run.result('awaiting_input', null);
}

/** The one decision on `pending` in `task`, checked; undefined when `task` has none. */
function decisionOf(
  sessionId: string,
  pending: PendingRequest,
  task: readonly TaskMessage[],
): ToolApprovalResponseEvent | undefined {
  const decisions = task.filter((m) => m.type === 'ToolApprovalResponseEvent');
  for (const d of decisions) {
    if (d.callId !== pending.id) {
      throw new ConfigError(
        `run(): session "${sessionId}" waits on budget request "${pending.id}", not "${d.callId}". ` +
          'Pass pendingRequest.id to approve(id, { amountUsd }) or reject(id).',
        { path: 'task.callId' },
      );
    }
    const amount = d.amountUsd;
    if (d.approved && (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0)) {
      throw new ConfigError(
        `run(): approving budget request "${pending.id}" needs \`amountUsd\`, the positive ` +
          `number of US dollars to raise the budget by, got ${String(amount)}. Use ` +
          'approve(id, { amountUsd: 0.5 }).',
        { path: 'task.amountUsd' },
      );
    }
  }
  if (decisions.length > 1) {
    throw new ConfigError(
      `run(): budget request "${pending.id}" takes one decision, got ${decisions.length}.`,
      { path: 'task' },
    );
  }
  return decisions[0];
}
