import { type StepView, stepViewOf } from '../engine/log/step-messages.js';
import {
  HAND_OVER,
  INPUT_ONCE,
  OBSERVE_RUN,
  type ObservedRun,
} from '../engine/run/run-observer.js';
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
  /** Once aborted, every run of the hub is handed on after its turn (see `HAND_OVER`). */
  readonly handOver?: AbortSignal;
  /** Each run's input is given once: a run whose input is in the thread already rejects (see `INPUT_ONCE`). */
  readonly inputOnce?: boolean;
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
 * hub's `onStep`, and the hub's hand-over signal and input rule go with it.
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
    [HAND_OVER]: hub.handOver,
    [INPUT_ONCE]: hub.inputOnce === true,
    [OBSERVE_RUN]: {
      message: (m) => live()?.message(m),
      step: (step, appended, state, statePatch) => {
        const view = stepViewOf(step, appended, state, statePatch);
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
