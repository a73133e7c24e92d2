import type { RunOptions } from '../engine/runnable.js';
import type { CheckpointedSession } from '../engine/session/workflow-runner.js';
import type { Dispatcher } from '../workers/dispatcher.js';

// What a run's start in `RunHub` reads and sets up.

/** How a hub runs its sessions: here (the default), or queued for workers through a dispatcher. */
export interface HubOptions {
  /** Queue runs for workers instead of running them (API.md §16). */
  readonly dispatch?: { readonly dispatcher: Dispatcher; readonly queue: string };
}

/**
 * How a run starts: what a request's owner check read for it (a stop asked, the log's last step),
 * or the owner its start checks itself (see `RunHub.start()`).
 */
export interface Opening {
  readonly stopAsked?: boolean;
  readonly lastStep?: number | undefined;
  readonly owner?: string;
}

/** The options of a run aborted by `controller`. */
export function runOptions(controller: AbortController): RunOptions {
  return { signal: controller.signal };
}

/** Drops a session from this process's memory, unless a run holds it. */
export function disposeQuietly(session: CheckpointedSession): void {
  try {
    session.dispose();
  } catch {
    // It runs (a run of its owner's began meanwhile): it stays.
  }
}
