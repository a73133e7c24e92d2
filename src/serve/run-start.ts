import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import { type StepView, stepViewOf, stepViews } from '../engine/log/step-messages.js';
import { OBSERVE_RUN, type ObservedRun } from '../engine/run/run-observer.js';
import type { CheckpointedSession } from '../engine/session/workflow-runner.js';
import type { Cursor } from './event-cursor.js';
import type { LiveRun } from './live-run.js';
import type { Dispatcher } from '../workers/dispatcher.js';

// What a run's start in `RunHub` reads and sets up.

/** How a hub runs its sessions: here (the default), or queued for workers through a dispatcher. */
export interface HubOptions {
  /** Queue runs for workers instead of running them (API.md §16). */
  readonly dispatch?: { readonly dispatcher: Dispatcher; readonly queue: string };
  /** Called after every step a run of this hub commits (a worker announces it). */
  readonly onStep?: (sessionId: string) => void;
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
 * Where the session's log ends in `store`: its last step and how many messages that step
 * appended. `known`: where the last run here left it; `lastStep`: the last step as the store's
 * owner lookup just read it. When the two agree nothing is read; given `lastStep`, its record
 * alone; after a run here, one read from that run's last step shows whether the log is still
 * there and what came after it; else the session's info, then its last record alone.
 */
export async function logEnd(
  store: CheckpointStore,
  id: string,
  known: Cursor | undefined,
  lastStep: number | undefined,
  info: () => Promise<{ step: number }>,
): Promise<Cursor> {
  if (known !== undefined && known.step > 0 && lastStep === known.step) return known;
  if (lastStep === undefined && known !== undefined && known.step > 0) {
    const records = await store.read(id, { from: { after: known.step - 1 } });
    const last = records.at(-1);
    if (records[0]?.step === known.step && last !== undefined) {
      if (last.step === known.step) return known;
      return { step: last.step, n: stepViews(id, [last]).at(-1)?.messages.length ?? 0 };
    }
  }
  const step = lastStep ?? (await info()).step;
  if (step === 0) return { step: 0, n: 0 };
  const [view] = stepViews(id, await store.read(id, { from: { after: step - 1 }, upTo: step }));
  return { step: view?.step ?? 0, n: view?.messages.length ?? 0 };
}

/**
 * The options of a run whose events go to `live()` (once there is one), aborted by `controller`;
 * each committed step also goes to `log` (a session without a store) and to `onStep`.
 */
export function observedRun(
  live: () => LiveRun | undefined,
  controller: AbortController,
  log: StepView[] | undefined,
  onStep: () => void,
): ObservedRun {
  return {
    signal: controller.signal,
    [OBSERVE_RUN]: {
      message: (m) => live()?.message(m),
      step: (step, appended, state, statePatch) => {
        const view = stepViewOf(step, appended, state, statePatch);
        log?.push(view);
        live()?.step(view);
        onStep();
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
