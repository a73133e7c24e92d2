import { ConfigError } from '../../errors.js';
import type { Orchestration } from '../orchestration.js';
import type { Runnable } from '../runnable.js';
import { WorkflowRunner } from '../session/workflow-runner.js';
import { answersCost } from './conversation-cost.js';
import { type BuildRunner, errorDivergence, player, runDivergence } from './play.js';
import { parseRecording, type Recording } from './recording.js';
import type { Divergence } from './replay-controller.js';
import type { ReplayTools } from './replay-tools.js';

/** Options of `replay()`. */
export interface ReplayOptions {
  /**
   * Where tool results come from: the recording, or the tools run for real (each result is
   * checked against the recorded one). @default "recorded"
   */
  tools?: ReplayTools;
}

/** What `replay()` found: `ok` when every turn and run went as recorded. */
export interface ReplayReport {
  readonly ok: boolean;
  /** Agent turns replayed: all of them, or up to the divergent one. */
  readonly turns: number;
  /** The first difference; absent when `ok`. */
  readonly divergence?: Divergence;
  /**
   * What the recorded conversation's model calls cost at the workflow's prices (its
   * `CostTermination`), in US dollars; absent when they are not known for every call.
   */
  readonly costUsd?: number;
}

/**
 * Plays a recorded session against a workflow: every agent's model answers from the
 * recording, tools give their recorded results (or run, with `tools: "live"`), and the first
 * difference in speakers, handoffs, tool calls, approvals, statuses or stop reasons is reported.
 * The replay runs in a fresh session in memory: the workflow's store and sessions are untouched.
 *
 * @example
 * const recording = await workflow.session(id).record();
 * const report = await replay(workflow, recording);
 * if (!report.ok) throw new Error(describeDivergence(report.divergence));
 * @throws ConfigError when the recording comes from a workflow with other participants, or is
 * not a recording.
 */
export async function replay(
  workflow: Runnable,
  recording: Recording,
  options: ReplayOptions = {},
): Promise<ReplayReport> {
  if (!(workflow instanceof WorkflowRunner)) {
    throw new ConfigError(
      'replay(): workflow must be a workflow or team built by Baton (HandoffBuilder, GraphBuilder, a team).',
      { path: 'workflow' },
    );
  }
  return replayRecording(workflow.orchestration, recording, options, (o) => new WorkflowRunner(o));
}

/** Plays a recording against `orchestration` and reports the first divergence. */
export async function replayRecording(
  orchestration: Orchestration,
  value: Recording,
  options: ReplayOptions,
  build: BuildRunner,
): Promise<ReplayReport> {
  const tools = options?.tools ?? 'recorded';
  if (tools !== 'recorded' && tools !== 'live') {
    throw new ConfigError(
      `replay(): tools must be "recorded" or "live", got ${JSON.stringify(tools)}.`,
      { path: 'tools' },
    );
  }
  const recording = parseRecording(value);
  checkParticipants(orchestration, recording);
  const { controller, run, updateState } = player(orchestration, recording, tools, build);
  const answers = recording.turns.flatMap((t) => t.answers.map((a) => ({ ...a, agent: t.agent })));
  const spent = answersCost(orchestration, answers);
  const cost = spent === undefined ? {} : { costUsd: spent };
  const diverged = (divergence: Divergence): ReplayReport => ({
    ok: false,
    turns: divergence.turn,
    divergence,
    ...cost,
  });
  for (const planned of recording.runs) {
    for (const ops of planned.stateUpdates ?? []) {
      const failed = await updateState(ops);
      if (failed !== undefined) {
        return diverged(errorDivergence(recording, controller.started, failed.failed));
      }
    }
    const result = await run({
      input: planned.input,
      end: { turns: planned.turns, status: planned.status },
    });
    if (controller.divergence !== undefined) return diverged(controller.divergence);
    if ('failed' in result) {
      return diverged(errorDivergence(recording, controller.started, result.failed));
    }
    const found = runDivergence(recording, planned, controller.started, result);
    if (found !== undefined) return diverged(found);
  }
  return { ok: true, turns: controller.started, ...cost };
}

/**
 * A recording belongs to a workflow with the same participants.
 * @throws ConfigError naming both sets.
 */
function checkParticipants(orchestration: Orchestration, recording: Recording): void {
  const recorded = recording.participants.map((p) => p.name).sort();
  const here = [...orchestration.participants.keys()].sort();
  if (recorded.join('\n') === here.join('\n')) return;
  const list = (names: string[]) => names.map((n) => `"${n}"`).join(', ');
  throw new ConfigError(
    `replay(): the recording of session "${recording.sessionId}" was made by a workflow with ` +
      `participants ${list(recorded)}, and this workflow has ${list(here)}. Replay it with the ` +
      'workflow that recorded it, or record the session again.',
    { path: 'recording.participants' },
  );
}
