import type { StateRecipe, StateValue } from '../agents/conversation-state.js';
import type { AgentMessage, ChatMessage, ToolApprovalResponseEvent } from '../messages/message.js';
import type { FeedOptions } from './feed/session-feed.js';
import type { FeedEvent } from './feed/run-event.js';
import type { RecordOptions } from './recording/record.js';
import type { Recording } from './recording/recording.js';
import type { PendingRequest } from './state/session-state.js';
import type { Principal } from '../agents/approvers.js';

/**
 * What a run starts from: a string becomes a `TextMessage` from `"user"`; `approve()` /
 * `reject()` decide calls awaiting approval.
 */
export type Task =
  | string
  | ChatMessage
  | ToolApprovalResponseEvent
  | readonly (ChatMessage | ToolApprovalResponseEvent)[];

/** A message a task may hold. */
export type TaskMessage = ChatMessage | ToolApprovalResponseEvent;

/** Options of `run()` and `runStream()`. */
export interface RunOptions {
  /** Aborts the in-flight model call; the run ends with status `cancelled`, nothing lost. */
  signal?: AbortSignal;
  /** Put the task messages first in `TaskResult.messages` and the stream. @default true */
  outputTaskMessages?: boolean;
  /**
   * Who decides: a decision on a request that waits for a role (a tool's `approvers`) is refused
   * when this principal holds none of them; recorded on each decision as `metadata.principal`.
   * @default none: the decision is the application's own, and allowed
   */
  principal?: Principal;
}

/** The outcome of one run: a normal result whether the session stopped, paused or was cancelled. */
export interface TaskResult {
  readonly type: 'TaskResult';
  /** This run's messages (task first unless `outputTaskMessages: false`); chunks are not kept. */
  readonly messages: AgentMessage[];
  /** The StopMessage content or a team stop reason; `null` when paused or cancelled. */
  readonly stopReason: string | null;
  readonly status: 'terminated' | 'awaiting_input' | 'cancelled';
  /** The question the session waits on, when `status` is `awaiting_input`. */
  readonly pendingRequest?: PendingRequest;
  readonly sessionId: string;
  /** Token usage of this run's messages. */
  readonly usage: { promptTokens: number; completionTokens: number };
}

/** Where a session stands, as `Session.info()` reports it. */
export interface SessionInfo {
  readonly status: 'idle' | 'running' | 'awaiting_input' | 'terminated' | 'cancelled';
  readonly pendingRequest?: PendingRequest;
  /** Steps committed so far. */
  readonly step: number;
  /**
   * The conversation state, deep-frozen; present when the workflow has a `state`
   * option or the state was updated.
   */
  readonly state?: StateValue;
}

/** Every team and workflow: run a task, stream it, reset, and reach independent sessions. */
export interface Runnable {
  /** Runs the default session until it stops, pauses for the user or is cancelled. */
  run(task?: Task, options?: RunOptions): Promise<TaskResult>;
  /** Like `run()`, yielding every message as it is produced and the `TaskResult` last. */
  runStream(task?: Task, options?: RunOptions): AsyncIterable<AgentMessage | TaskResult>;
  /** Clears the default session: thread, speaker, turn counter and condition state. */
  reset(): Promise<void>;
  /** An independent conversation; a new generated id when `id` is omitted. */
  session(id?: string): Session;
  /** The default session as JSON; `loadState(saveState())` restores it exactly. */
  saveState(): Promise<unknown>;
  loadState(state: unknown): Promise<void>;
}

/** One conversation of a workflow or team. */
export interface Session extends Omit<Runnable, 'session'> {
  readonly id: string;
  /** The whole thread so far. */
  messages(): Promise<AgentMessage[]>;
  info(): Promise<SessionInfo>;
  /** The conversation state: a deep-frozen copy. */
  state(): Promise<StateValue>;
  /**
   * Changes the conversation state with `recipe` on an immer draft, committed as its own step
   * (`state_update`). A paused session stays paused and gets no message.
   * @throws SessionBusyError while the session runs; ConfigError when the new state fails the
   *   schema (nothing is committed); the recipe's own error.
   */
  updateState(recipe: StateRecipe): Promise<void>;
  /**
   * The session as a JSON-safe `Recording` for `replay()`: inputs and decisions,
   * each agent turn with its model's answers and tool results, and the path it took.
   * @throws ConfigError when this workflow does not play the session again.
   */
  record(options?: RecordOptions): Promise<Recording>;
  /**
   * The session's feed: the messages committed after `after` (default: since the run going on
   * began), then the run going on — in this process or any other sharing the store, chunks as
   * drafts of the step being made — up to its `result`. Ends at once, empty, when nothing runs and
   * nothing follows the cursor. A run that fails makes the feed throw its error.
   * @throws ConfigError at once when `after` is not a cursor.
   */
  feed(options?: FeedOptions): AsyncIterable<FeedEvent>;
}
