import { z } from 'zod';

import type { StatePatchOp } from '../../agents/conversation-state.js';
import { ConfigError } from '../../errors.js';
import type {
  AgentMessage,
  FunctionCall,
  FunctionExecutionResult,
} from '../../messages/message.js';
import {
  AgentMessageSchema,
  FunctionCallSchema,
  FunctionExecutionResultSchema,
} from '../../messages/message-schema.js';
import { firstIssue } from '../../zod-issues.js';
import { StatePatchOpSchema } from '../state/state-updates.js';

/** One model answer as the agent received it: text, tool calls and token usage. */
export interface RecordedAnswer {
  readonly content: string | null;
  readonly toolCalls: readonly FunctionCall[];
  readonly usage: { readonly promptTokens: number; readonly completionTokens: number };
  readonly thought?: string | undefined;
}

/** A tool call's change of the conversation state: the call and its operations. */
export interface RecordedStateUpdate {
  readonly callId: string;
  readonly ops: readonly StatePatchOp[];
}

/**
 * One agent turn (an approval pause and its decision stay in one turn, as do calls in doubt and
 * their decisions): who spoke, its model's answers in order, its tool results, the calls it paused
 * on for approval, where it handed off, and what kind of chat message ended it (absent while it is
 * paused).
 */
export interface RecordedTurn {
  readonly agent: string;
  readonly answers: readonly RecordedAnswer[];
  readonly results: readonly FunctionExecutionResult[];
  readonly approvals?: readonly FunctionCall[] | undefined;
  /** The calls found in doubt in it: their run was cut off while they ran. */
  readonly inDoubt?: readonly FunctionCall[] | undefined;
  readonly handoff?: string | undefined;
  /** The brief of its handoff, when it had one. */
  readonly brief?: unknown;
  readonly message?: string | undefined;
  /** The state updates of its tool calls that succeeded, in the order they applied; absent: none. */
  readonly stateUpdates?: readonly RecordedStateUpdate[] | undefined;
}

/**
 * One `run()` of the session: its input (the task's messages: user text, handoffs, approval
 * decisions; `null` for a run without a task), how many agent turns had begun when it ended, and
 * how it ended.
 */
export interface RecordedRun {
  readonly input: readonly AgentMessage[] | null;
  readonly turns: number;
  readonly status: 'terminated' | 'awaiting_input' | 'cancelled';
  readonly stopReason: string | null;
  /**
   * The application's state updates (`session.updateState()`) made before this run,
   * each as its operations, in order; absent: none.
   */
  readonly stateUpdates?: readonly (readonly StatePatchOp[])[] | undefined;
}

/** What identifies a participant: its name and, for an `Agent`, its instructions. */
export interface RecordedParticipant {
  readonly name: string;
  /** The instructions as recorded (passed through `redact` like every text). */
  readonly instructions?: string | undefined;
  /** SHA-256 of the instructions as they were (what replay compares). */
  readonly instructionsDigest?: string | undefined;
}

/**
 * A session as a deterministic test: JSON-safe, made by `session.record()` and played
 * by `replay()`. The path is in `turns` (speakers, handoffs, approvals) and `runs` (inputs and
 * decisions, statuses, stop reasons); the conversation state's updates are in both,
 * the tool calls' with their turn and the application's with the run they came before.
 */
export interface Recording {
  readonly version: 1;
  readonly workflow: string;
  readonly sessionId: string;
  readonly participants: readonly RecordedParticipant[];
  readonly turns: readonly RecordedTurn[];
  readonly runs: readonly RecordedRun[];
}

const UsageSchema = z.object({
  promptTokens: z.number().nonnegative(),
  completionTokens: z.number().nonnegative(),
});

const RecordingSchema = z.object({
  version: z.literal(1),
  workflow: z.string(),
  sessionId: z.string().min(1),
  participants: z.array(
    z.object({
      name: z.string().min(1),
      instructions: z.string().optional(),
      instructionsDigest: z.string().optional(),
    }),
  ),
  turns: z.array(
    z.object({
      agent: z.string().min(1),
      answers: z.array(
        z.object({
          content: z.string().nullable(),
          toolCalls: z.array(FunctionCallSchema),
          usage: UsageSchema,
          thought: z.string().optional(),
        }),
      ),
      results: z.array(FunctionExecutionResultSchema),
      approvals: z.array(FunctionCallSchema).optional(),
      inDoubt: z.array(FunctionCallSchema).optional(),
      handoff: z.string().optional(),
      brief: z.unknown().optional(),
      message: z.string().optional(),
      stateUpdates: z
        .array(z.object({ callId: z.string().min(1), ops: z.array(StatePatchOpSchema) }))
        .optional(),
    }),
  ),
  runs: z.array(
    z.object({
      input: z.array(AgentMessageSchema).nullable(),
      turns: z.number().int().nonnegative(),
      status: z.enum(['terminated', 'awaiting_input', 'cancelled']),
      stopReason: z.string().nullable(),
      stateUpdates: z.array(z.array(StatePatchOpSchema)).optional(),
    }),
  ),
});

/**
 * Checks a recording read from JSON (a file, a request body).
 * @throws ConfigError naming the first bad field's path.
 */
export function parseRecording(value: unknown): Recording {
  const parsed = RecordingSchema.safeParse(value);
  if (!parsed.success) {
    const { path, text } = firstIssue(parsed.error);
    throw new ConfigError(
      `replay(): the recording is not valid (${text}). ` +
        'Pass the value session.record() returned (or its JSON, parsed).',
      { path: `recording.${path}` },
    );
  }
  return parsed.data;
}
