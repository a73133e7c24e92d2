import { applyStateOps, type StatePatchOp } from '../../agents/conversation-state.js';
import type { AgentMessage } from '../../messages/message.js';
import { isChatMessage } from '../../messages/message.js';
import { messageOf } from '../../unknown-value.js';
import type { Orchestration } from '../orchestration.js';
import type { Runnable, RunOptions, Task, TaskMessage, TaskResult } from '../runnable.js';
import type { Recording } from './recording.js';
import { type Divergence, ReplayController } from './replay-controller.js';
import { instructionsDigest, replayParticipants } from './replay-agents.js';
import type { ReplayTools } from './replay-tools.js';

/** Builds a workflow without a store around an orchestration (the engine's `WorkflowRunner`). */
export type BuildRunner = (orchestration: Orchestration) => Runnable;

/** A run of a replay: its task (or none), and where and how the recorded run ended. */
export interface PlannedRun {
  readonly input: readonly AgentMessage[] | null;
  readonly end: { readonly turns: number; readonly status: string };
}

/** A replay in progress: the controller, and the session it plays in (a fresh one, in memory). */
export interface Player {
  readonly controller: ReplayController;
  run(planned: PlannedRun): Promise<TaskResult | { readonly failed: string }>;
  /** How many messages the session's thread has. */
  threadLength(): Promise<number>;
  /** Makes an application's recorded state update; what went wrong, if it failed. */
  updateState(ops: readonly StatePatchOp[]): Promise<{ readonly failed: string } | undefined>;
}

/**
 * Sets up a replay of `recording` on a copy of `orchestration` whose agents answer from it, in a
 * workflow without a store: nothing of the replay reaches the workflow's own store or sessions.
 */
export function player(
  orchestration: Orchestration,
  recording: Recording,
  tools: ReplayTools,
  build: BuildRunner,
): Player {
  const digests = new Map<string, string | undefined>();
  const controller = new ReplayController(recording, digests);
  const participants = replayParticipants(orchestration.participants, controller, tools);
  for (const name of participants.keys()) {
    if (controller.isAgent(name))
      digests.set(name, instructionsDigest(controller.instructionsOf(name)));
  }
  // A selector team's choices come from the recording like every model's answers (the selector
  // is a model, or a function of what the models said).
  const selects = orchestration.descriptor.kind === 'selector' && orchestration.selectSpeaker;
  const replayed: Orchestration = {
    ...orchestration,
    participants,
    ...(selects ? { selectSpeaker: async () => controller.nextSpeaker() } : {}),
  };
  const session = build(replayed).session(recording.sessionId);
  return {
    controller,
    async run(planned) {
      const options: RunOptions = { signal: controller.nextRun(planned.end) };
      try {
        const task = taskOf(planned.input);
        return await (task === undefined
          ? session.run(undefined, options)
          : session.run(task, options));
      } catch (error) {
        return { failed: messageOf(error) };
      }
    },
    async threadLength() {
      return (await session.messages()).length;
    },
    async updateState(ops) {
      try {
        const state = await session.state();
        await session.updateState(() => applyStateOps(state, ops));
        return undefined;
      } catch (error) {
        return { failed: messageOf(error) };
      }
    },
  };
}

/** The task a recorded input gives again. */
function taskOf(input: readonly AgentMessage[] | null): Task | undefined {
  if (input === null) return undefined;
  const messages = input.filter(
    (m): m is TaskMessage => isChatMessage(m) || m.type === 'ToolApprovalResponseEvent',
  );
  return messages.length === 1 && messages[0] !== undefined ? messages[0] : messages;
}

/** How a replayed run differs from the recorded one, if it does (after its turns matched). */
export function runDivergence(
  recording: Recording,
  planned: { turns: number; status: string; stopReason: string | null },
  started: number,
  result: TaskResult,
): Divergence | undefined {
  const agentAt = (turn: number) =>
    recording.turns[turn - 1]?.agent ?? recording.turns[0]?.agent ?? 'user';
  if (started < planned.turns) {
    const turn = Math.max(started, 1);
    return {
      turn,
      agent: agentAt(turn),
      what: 'status',
      expected: 'running',
      actual: result.status,
    };
  }
  const turn = Math.max(planned.turns, 1);
  if (result.status !== planned.status) {
    return {
      turn,
      agent: agentAt(turn),
      what: 'status',
      expected: planned.status,
      actual: result.status,
    };
  }
  if (result.stopReason !== planned.stopReason) {
    return {
      turn,
      agent: agentAt(turn),
      what: 'stop_reason',
      expected: planned.stopReason,
      actual: result.stopReason,
    };
  }
  return undefined;
}

/** The divergence of a run that failed with an error no divergence explains. */
export function errorDivergence(recording: Recording, started: number, error: string): Divergence {
  const turn = Math.max(started, 1);
  return {
    turn,
    agent: recording.turns[turn - 1]?.agent ?? 'user',
    what: 'error',
    expected: null,
    actual: error,
  };
}
