import { setTimeout as sleep } from 'node:timers/promises';

import type { CheckpointStore } from '../../checkpoint/checkpoint-store.js';
import { internalKey } from '../../checkpoint/session-id.js';
import type { CheckpointedSession } from '../session/workflow-runner.js';
import type { LiveRun } from './live-run.js';

/** How long a stop request for a run in another process waits to be seen. */
export const STOP_SIGNAL_MS = 30_000;
/** The lease owner that marks a stop request. */
export const STOP_OWNER = 'baton.stop';
/** How often a running session looks for a stop asked by another process. */
const STOP_POLL_MS = 200;

/**
 * The lease key that carries a stop request for a session to the process running it: an internal
 * key, which no session id reaches. Only a lease held by `STOP_OWNER` there is a stop request.
 */
export function stopKey(id: string): string {
  return internalKey('stop', id);
}

/** True when `holder` (of the lease at `stopKey()`) is a stop request. */
export function isStopRequest(holder: string | null | undefined): boolean {
  return holder === STOP_OWNER;
}

/** Asks the process running the session (or its next run) to stop it. */
export async function askStop(store: CheckpointStore, id: string): Promise<void> {
  await store.acquireLease(stopKey(id), STOP_OWNER, STOP_SIGNAL_MS);
}

/** True when another process asked to stop the session while it was idle. */
export async function stopAsked(store: CheckpointStore | undefined, id: string): Promise<boolean> {
  return store !== undefined && isStopRequest(await store.leaseHolder(stopKey(id)));
}

/** A stop asked of another process while the session was idle stops this run at its input. */
export async function takeStopSignal(
  store: CheckpointStore | undefined,
  id: string,
  session: CheckpointedSession,
): Promise<void> {
  session.stop();
  await store?.releaseLease(stopKey(id), STOP_OWNER);
}

/** While `live` runs (and the hub is not closing): a stop another process asked for stops it. */
export async function watchStop(
  store: CheckpointStore,
  id: string,
  session: CheckpointedSession,
  live: LiveRun,
  closing: () => boolean,
): Promise<void> {
  while (!live.done && !closing()) {
    await Promise.race([sleep(STOP_POLL_MS), live.ended]);
    if (live.done) return;
    try {
      if (isStopRequest(await store.leaseHolder(stopKey(id)))) {
        session.stop();
        await store.releaseLease(stopKey(id), STOP_OWNER);
      }
    } catch {
      // The store is unreachable: the run itself will say so.
    }
  }
}
