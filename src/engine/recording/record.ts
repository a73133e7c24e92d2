import type { StatePatchOp } from '../../agents/conversation-state.js';
import { ConfigError } from '../../errors.js';
import type { AgentMessage } from '../../messages/message.js';
import type { Orchestration } from '../orchestration.js';
import type { StateUpdate } from '../state/state-updates.js';
import { type BuildRunner, errorDivergence, player } from './play.js';
import type { RecordedParticipant, RecordedRun, RecordedTurn, Recording } from './recording.js';
import { instructionsDigest, instructionsOf } from './replay-agents.js';
import { type Redact, redactData, threadPath } from './thread-turns.js';

/** Options of `session.record()`. */
export interface RecordOptions {
  /**
   * Rewrites every text of the recording: messages, model answers, tool arguments and results,
   * instructions (e.g. to mask e-mail addresses). Names, ids and stop reasons are kept.
   * @default none
   */
  redact?: (text: string) => string;
}

/** What a recording is made of: the session's thread and its state's updates. */
export interface RecordedSession {
  readonly thread: readonly AgentMessage[];
  readonly stateUpdates: readonly StateUpdate[];
}

/**
 * A session's recording. The thread gives the inputs and each agent turn with its
 * model's answers, and the state's updates go with the tool calls (and the runs) that made them;
 * playing them once against the workflow (recorded tools, nothing stored) gives how each run
 * ended (statuses and stop reasons, which the step log does not keep) and where each of the
 * application's updates came.
 * @throws ConfigError when the workflow does not play its own session again.
 */
export async function recordSession(
  sessionId: string,
  orchestration: Orchestration,
  { thread, stateUpdates }: RecordedSession,
  options: RecordOptions,
  build: BuildRunner,
): Promise<Recording> {
  const redact: Redact | undefined = options?.redact;
  if (redact !== undefined && typeof redact !== 'function') {
    throw new ConfigError('session.record(): redact must be a function (text) => text.', {
      path: 'redact',
    });
  }
  const participants = [...orchestration.participants.values()].map(
    (agent): RecordedParticipant => {
      const instructions = instructionsOf(agent);
      const digest = instructionsDigest(instructions);
      return {
        name: agent.name,
        ...(instructions === undefined
          ? {}
          : { instructions: redact?.(instructions) ?? instructions }),
        ...(digest === undefined ? {} : { instructionsDigest: digest }),
      };
    },
  );
  const path = threadPath(thread, new Set(orchestration.participants.keys()), redact);
  if (path.withheld !== undefined) throw withheldAnswer(sessionId, path.withheld);
  const turns = withCallUpdates(path.turns, stateUpdates, redact);
  const draft: Recording = {
    version: 1,
    workflow: orchestration.name,
    sessionId,
    participants,
    turns,
    runs: [],
  };
  const played = player(orchestration, draft, 'recorded', build);
  const { controller, run } = played;
  const runs: RecordedRun[] = [];
  const { inputs } = path;
  // The application's updates, each made with the thread `at` long: made again before the first
  // run that starts with the thread as long, and recorded with that run.
  const appUpdates = stateUpdates.filter((u) => 'at' in u);
  let nextUpdate = 0;
  const appUpdatesNow = async () => {
    const applied: StatePatchOp[][] = [];
    let failed: { readonly failed: string } | undefined;
    // Only a session the application updated needs the thread's length (a copy of the thread).
    const length = appUpdates[nextUpdate] === undefined ? 0 : await played.threadLength();
    for (let u = appUpdates[nextUpdate]; u !== undefined && u.at <= length && !failed;) {
      const ops = redactOps(u.ops, redact);
      applied.push(ops);
      failed = await played.updateState(ops);
      u = appUpdates[++nextUpdate];
    }
    return { applied, failed };
  };
  let next = 0;
  const afterInput = (i: number) => inputs[i]?.after ?? turns.length;
  for (;;) {
    let input: AgentMessage[] | null = null;
    // A run without a task the thread shows (it found calls in doubt) begins no turn.
    let resumes = false;
    let tripped: string | undefined;
    if (controller.started >= afterInput(next)) {
      if (next >= inputs.length) break;
      input = inputs[next]?.messages ?? null;
      tripped = inputs[next]?.tripped;
      resumes = input === null;
      next++;
    }
    const before = controller.started;
    const { applied, failed } = await appUpdatesNow();
    const result =
      failed ?? (await run({ input, end: { turns: afterInput(next), status: 'cancelled' } }));
    const problem =
      controller.divergence ??
      ('failed' in result ? errorDivergence(draft, controller.started, result.failed) : undefined);
    if (problem !== undefined || (input === null && !resumes && controller.started === before)) {
      const why =
        problem === undefined
          ? `turn ${before + 1} does not come again`
          : `${problem.what} differs at turn ${problem.turn} (${problem.agent})`;
      throw new ConfigError(
        `session("${sessionId}").record(): this workflow does not play the session again: ${why}. ` +
          'Record a session with the workflow that ran it.',
      );
    }
    if ('failed' in result) break;
    // A guardrail stopped this run in the session; played again, the task does not trip it: it
    // was an output guardrail, on an answer that is not stored.
    if (tripped !== undefined && !result.stopReason?.startsWith(`Guardrail "${tripped}" tripped`)) {
      throw withheldAnswer(sessionId, tripped);
    }
    runs.push({
      input,
      turns: controller.started,
      status: result.status,
      stopReason: result.stopReason,
      ...(applied.length === 0 ? {} : { stateUpdates: applied }),
    });
  }
  return { ...draft, runs };
}

/** The error of a session whose thread lacks an answer that output guardrail `name` withheld. */
function withheldAnswer(sessionId: string, name: string): ConfigError {
  return new ConfigError(
    `session("${sessionId}").record(): output guardrail "${name}" withheld an answer of this ` +
      'session, and a withheld answer is not stored, so the session cannot be played again. ' +
      'Record a session in which no output guardrail tripped.',
  );
}

/** `turns` with each tool call's state updates (by its call id, unique in a thread) beside it. */
function withCallUpdates(
  turns: readonly RecordedTurn[],
  updates: readonly StateUpdate[],
  redact: Redact | undefined,
): readonly RecordedTurn[] {
  const byCall = new Map<string, readonly StatePatchOp[]>();
  for (const u of updates) if ('call' in u) byCall.set(u.call, u.ops);
  if (byCall.size === 0) return turns;
  return turns.map((turn) => {
    const found = turn.results.flatMap((r) => {
      const ops = byCall.get(r.callId);
      return ops === undefined ? [] : [{ callId: r.callId, ops: redactOps(ops, redact) }];
    });
    return found.length === 0 ? turn : { ...turn, stateUpdates: found };
  });
}

/** `ops` with `redact` applied to the strings of their values (paths are names). */
function redactOps(ops: readonly StatePatchOp[], redact: Redact | undefined): StatePatchOp[] {
  return ops.map((op) =>
    redact === undefined || op.value === undefined || op.value === null
      ? op
      : { ...op, value: redactData(op.value, redact) },
  );
}
