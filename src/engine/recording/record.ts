import { ConfigError } from '../../errors.js';
import type { AgentMessage } from '../../messages/message.js';
import type { Orchestration } from '../orchestration.js';
import { type BuildRunner, errorDivergence, player } from './play.js';
import type { RecordedParticipant, RecordedRun, Recording } from './recording.js';
import { instructionsDigest, instructionsOf } from './replay-agents.js';
import { type Redact, threadPath } from './thread-turns.js';

/** Options of `session.record()`. */
export interface RecordOptions {
  /**
   * Rewrites every text of the recording: messages, model answers, tool arguments and results,
   * instructions (e.g. to mask e-mail addresses). Names, ids and stop reasons are kept.
   * @default none
   */
  redact?: (text: string) => string;
}

/**
 * A session's recording (API.md §19). The thread gives the inputs and each agent turn with its
 * model's answers; playing them once against the workflow (recorded tools, nothing stored) gives
 * how each run ended (statuses and stop reasons, which the step log does not keep).
 * @throws ConfigError when the workflow does not play its own session again.
 */
export async function recordSession(
  sessionId: string,
  orchestration: Orchestration,
  thread: readonly AgentMessage[],
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
  const draft: Recording = {
    version: 1,
    workflow: orchestration.name,
    sessionId,
    participants,
    turns: path.turns,
    runs: [],
  };
  const { controller, run } = player(orchestration, draft, 'recorded', build);
  const runs: RecordedRun[] = [];
  const { inputs, turns } = path;
  let next = 0;
  const afterInput = (i: number) => inputs[i]?.after ?? turns.length;
  for (;;) {
    let input: AgentMessage[] | null = null;
    if (controller.started >= afterInput(next)) {
      if (next >= inputs.length) break;
      input = inputs[next]?.messages ?? null;
      next++;
    }
    const before = controller.started;
    const result = await run({ input, end: { turns: afterInput(next), status: 'cancelled' } });
    const problem =
      controller.divergence ??
      ('failed' in result ? errorDivergence(draft, controller.started, result.failed) : undefined);
    if (problem !== undefined || (input === null && controller.started === before)) {
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
    runs.push({
      input,
      turns: controller.started,
      status: result.status,
      stopReason: result.stopReason,
    });
  }
  return { ...draft, runs };
}
