import type { RunOptions } from '../engine/runnable.js';
import type { CheckpointedSession } from '../engine/session/workflow-runner.js';
import { type CallLimit, LIMIT_CALLS } from '../engine/run/call-limit.js';
import type { Principal } from '../agents/approvers.js';
import type { Dispatcher } from '../workers/dispatcher.js';

// What a run's start in `RunHub` reads and sets up.

/** How a hub runs its sessions: here (the default), or queued for workers through a dispatcher. */
export interface HubOptions {
  /** Queue runs for workers instead of running them. */
  readonly dispatch?: { readonly dispatcher: Dispatcher; readonly queue: string };
  /** The limit of each session's runs beyond its own conditions (a tenant's daily cap). */
  readonly limit?: (sessionId: string) => CallLimit;
}

/**
 * How a run starts: what a request's owner check read for it (a stop asked, the log's last step),
 * or the owner its start checks itself (see `RunHub.start()`).
 */
export interface Opening {
  readonly stopAsked?: boolean;
  readonly lastStep?: number | undefined;
  readonly owner?: string;
  /** Who sends the input: the run checks and records it as the decider (`RunOptions.principal`). */
  readonly principal?: Principal | undefined;
}

/**
 * The options of run `id`, aborted by `controller`, sent by `principal` (who the run checks and
 * records as the decider), within the hub's limit of the session's calls.
 */
export function runOptions(
  id: string,
  controller: AbortController,
  hub: HubOptions,
  principal?: Principal,
): RunOptions {
  return {
    signal: controller.signal,
    ...(principal === undefined ? {} : { principal }),
    ...(hub.limit === undefined ? {} : { [LIMIT_CALLS]: hub.limit(id) }),
  };
}

/** Drops a session from this process's memory, unless a run holds it. */
export function disposeQuietly(session: CheckpointedSession): void {
  try {
    session.dispose();
  } catch {
    // It runs (a run of its owner's began meanwhile): it stays.
  }
}
