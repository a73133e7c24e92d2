import { type StepView, stepViewOf } from '../engine/log/step-messages.js';
import { OBSERVE_RUN, type ObservedRun, type WorkerRun } from '../engine/run/run-observer.js';
import type { CheckpointedSession } from '../engine/session/workflow-runner.js';
import type { LiveRun } from './live-run.js';
import type { Dispatcher } from '../workers/dispatcher.js';

// What a run's start in `RunHub` reads and sets up.

/** How a hub runs its sessions: here (the default), or queued for workers through a dispatcher. */
export interface HubOptions {
  /** Queue runs for workers instead of running them (API.md §16). */
  readonly dispatch?: { readonly dispatcher: Dispatcher; readonly queue: string };
  /** Called after every step a run of this hub commits (a worker announces it). */
  readonly onStep?: (sessionId: string) => void;
  /** What a worker's runs carry: the signal that hands them on, their input given once. */
  readonly worker?: WorkerRun;
  /** Where announcements of other processes' steps come from. */
  readonly signals?: Dispatcher;
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

/**
 * The options of run `id` whose events go to `live()` (once there is one), aborted by
 * `controller`; each committed step also goes to `log` (a session without a store) and to the
 * hub's `onStep`, and a worker's keys (`HubOptions.worker`) go with it.
 */
export function observedRun(
  id: string,
  live: () => LiveRun | undefined,
  controller: AbortController,
  log: StepView[] | undefined,
  hub: HubOptions,
): ObservedRun {
  return {
    signal: controller.signal,
    ...hub.worker,
    [OBSERVE_RUN]: {
      message: (m) => live()?.message(m),
      step: (state, change) => {
        const { append = [], statePatch, stopReason } = change;
        const view = stepViewOf(state.step, append, state, statePatch, stopReason);
        log?.push(view);
        live()?.step(view);
        hub.onStep?.(id);
      },
    },
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
