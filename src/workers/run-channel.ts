import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import type { RunChannel } from '../engine/feed/run-channel.js';
import { type Dispatcher, outcomeKey } from './dispatcher.js';

/** How the error a worker leaves for a failed run begins (its message follows). */
const FAILED = 'failed:';

/**
 * The engine's run channel over a queue engine (API.md §16, §22): steps announced on its own
 * channel (PostgreSQL LISTEN/NOTIFY, Redis pub/sub), the session's jobs waiting on `queue`, and
 * the error a worker left for a run that failed. `queue: null` on a worker (it queues nothing).
 */
export function channelOf(
  dispatcher: Dispatcher,
  queue: string | null,
  store: CheckpointStore | undefined,
): RunChannel {
  return {
    queued: true,
    announce: (id) => dispatcher.announce(id),
    listen: (heard) => dispatcher.listen(heard),
    ...(queue === null ? {} : { pending: (id, held) => dispatcher.pending(queue, id, held) }),
    async failure(inputId) {
      const outcome = await store?.leaseHolder(outcomeKey(inputId));
      return outcome?.startsWith(FAILED) === true ? outcome.slice(FAILED.length) : undefined;
    },
  };
}

/** What a worker leaves for the server that queued a run that failed with `message`. */
export function failedOutcome(message: string): string {
  return `${FAILED}${message}`;
}
