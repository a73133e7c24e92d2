import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import type { RunChannel } from '../engine/feed/run-channel.js';
import type { AgentMessage } from '../messages/message.js';
import { AgentMessageSchema } from '../messages/message-schema.js';
import { isRecord } from '../unknown-value.js';
import { type Dispatcher, outcomeKey, presenceQueue } from './dispatcher.js';

/** How the error a worker leaves for a failed run begins (its message follows). */
const FAILED = 'failed:';

/**
 * The engine's run channel over a queue engine: steps announced on its own
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
    // A worker's announcement of the queue it serves is no session's step (see QueuePresence).
    listen: (heard) =>
      dispatcher.listen((id) => {
        if (presenceQueue(id) === undefined) heard(id);
      }),
    ...(queue === null ? {} : { pending: (id, held) => dispatcher.pending(queue, id, held) }),
    ...(dispatcher.publishDraft === undefined || dispatcher.listenDrafts === undefined
      ? {}
      : {
          publishDraft(sessionId, step, message) {
            const text = JSON.stringify({ s: sessionId, t: step, m: message });
            void dispatcher.publishDraft?.(text).catch(() => {});
          },
          listenDrafts: (heard) =>
            dispatcher.listenDrafts?.((text) => {
              const draft = draftOf(text);
              if (draft !== undefined) heard(draft.s, draft.t, draft.m);
            }) ?? Promise.resolve(async () => {}),
        }),
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

/** A draft as the channel carries it, or `undefined` for text that is not one (it is dropped). */
function draftOf(text: string): { s: string; t: number; m: AgentMessage } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || typeof parsed.s !== 'string' || typeof parsed.t !== 'number') {
    return undefined;
  }
  const message = AgentMessageSchema.safeParse(parsed.m);
  return message.success
    ? { s: parsed.s, t: parsed.t, m: message.data as AgentMessage }
    : undefined;
}
