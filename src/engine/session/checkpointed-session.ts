import type { CheckpointInfo } from '../log/checkpoint-info.js';
import type { Session } from '../runnable.js';

/** Options of `session(id, options)`. */
export interface SessionOptions {
  /** Start the new session as a copy of another session at a past step (time travel). */
  from?: { session: string; step: number };
  /**
   * Who the session belongs to (e.g. the signed-in user's id), recorded in the checkpoint store
   * with the session's first step, for `store.list({ owner })`. Ignored for a session the store
   * already holds. Needs a checkpoint store. @default none
   */
  owner?: string;
}

/** A session with its step log and what happened at each step. */
export interface CheckpointedSession extends Session {
  /** The step log: one entry per committed step. Needs a checkpoint store. */
  checkpoints(): Promise<CheckpointInfo[]>;
  /**
   * Stops this session after its current agent turn (or at the next run's input when it is not
   * running), with stopReason `reason`. Other sessions of the workflow go on.
   * @default reason "External termination requested"
   */
  stop(reason?: string): void;
  /**
   * Drops the session from this workflow's memory. With a checkpoint store it is reloaded from the
   * store when used again; without one, its conversation is gone and the id starts afresh.
   * @throws SessionBusyError while the session runs.
   */
  dispose(): void;
  /**
   * Deletes the session and its whole step log, from memory and from the checkpoint store (taking
   * its lease first, so a run in another process cannot be cut short). The next
   * `workflow.session(id)` is a new, empty session.
   * @throws SessionBusyError while the session runs, here or in another process.
   */
  delete(): Promise<void>;
}
