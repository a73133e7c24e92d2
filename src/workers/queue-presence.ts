import { type Dispatcher, PRESENCE_MS, presenceQueue } from './dispatcher.js';

/** A queue no worker has announced itself for since this long is served by none. */
const UNSERVED_MS = 4 * PRESENCE_MS;
/**
 * A queue whose workers announced themselves before, and then none for this long: longer, since
 * workers that die or restart leave it unserved for a while (their jobs wait for the next).
 */
const ABANDONED_MS = 15 * PRESENCE_MS;

/**
 * Which queues have workers, from the workers' own announcements (each announces the queue it
 * consumes every `PRESENCE_MS` on the steps channel): a server can then tell a client that no
 * worker serves its input's queue instead of keeping it waiting for good.
 */
export class QueuePresence {
  /** When this server started to hear announcements (0: not yet). */
  #since = 0;
  /** Per queue: when a worker last announced that it serves it. */
  readonly #served = new Map<string, number>();
  readonly #listening: Promise<(() => Promise<void>) | undefined>;

  /** Listens to `dispatcher`'s announcements from now until `close()`. */
  constructor(dispatcher: Dispatcher) {
    this.#listening = dispatcher
      .listen((announced) => {
        const queue = presenceQueue(announced);
        if (queue !== undefined) this.#served.set(queue, Date.now());
      })
      .then(
        (stop) => {
          this.#since = Date.now();
          return stop;
        },
        // A dispatcher that cannot listen: no queue is ever called unserved.
        () => undefined,
      );
  }

  /**
   * False when no worker has announced that it serves `queue` since this server listens (for 8 s
   * at least), or none for 30 s after some did; true otherwise, also while it cannot tell yet.
   */
  served(queue: string): boolean {
    const now = Date.now();
    if (this.#since === 0 || now - this.#since < UNSERVED_MS) return true;
    const heard = this.#served.get(queue);
    return heard !== undefined && now - heard < ABANDONED_MS;
  }

  async close(): Promise<void> {
    await (await this.#listening)?.().catch(() => {});
  }

  /** The queues workers announced lately, for a message. */
  servedQueues(): string[] {
    const now = Date.now();
    return [...this.#served].filter(([, at]) => now - at < UNSERVED_MS).map(([queue]) => queue);
  }
}
