import { type Dispatcher, PRESENCE_MS, presenceQueue } from '../workers/dispatcher.js';

/** A queue no worker has announced itself for since this long is served by none. */
const UNSERVED_MS = 4 * PRESENCE_MS;
/**
 * A queue whose workers announced themselves before, and then none for this long: longer, since
 * workers that die or restart leave it unserved for a while (their jobs wait for the next).
 */
const ABANDONED_MS = 15 * PRESENCE_MS;

/**
 * Wakes the readers of a session when a worker announces a step of it (Postgres LISTEN/NOTIFY or
 * Redis pub/sub through the dispatcher), so a server follows runs made elsewhere without polling
 * the store every few milliseconds. Without a dispatcher nothing is announced: `next()` never
 * settles and readers fall back to polling.
 */
export class StepSignals {
  readonly #dispatcher: Dispatcher | undefined;
  readonly #waiters = new Map<string, Set<() => void>>();
  #listening: Promise<(() => Promise<void>) | undefined> | undefined;
  #active = false;
  /** When announcements started to arrive (0: not yet). */
  #since = 0;
  /** Per queue: when a worker last announced that it serves it. */
  readonly #served = new Map<string, number>();

  constructor(dispatcher: Dispatcher | undefined) {
    this.#dispatcher = dispatcher;
  }

  /** True once announcements arrive: readers then look at the store only as a slow fallback. */
  get active(): boolean {
    return this.#active;
  }

  /** Settles at the next announced step of the session. */
  next(id: string): Promise<void> {
    if (this.#dispatcher === undefined) return new Promise<void>(() => {});
    this.#listen();
    return new Promise<void>((resolve) => {
      let set = this.#waiters.get(id);
      if (set === undefined) {
        set = new Set();
        this.#waiters.set(id, set);
      }
      set.add(resolve);
    });
  }

  /**
   * False when no worker has announced that it serves `queue` since this server listens (for 8 s
   * at least), or none for 30 s after some did; true otherwise, also while it cannot tell yet.
   */
  served(queue: string): boolean {
    const now = Date.now();
    if (!this.#active || now - this.#since < UNSERVED_MS) return true;
    const heard = this.#served.get(queue);
    return heard !== undefined && now - heard < ABANDONED_MS;
  }

  /** The queues workers announced lately, for a message. */
  servedQueues(): string[] {
    const now = Date.now();
    return [...this.#served].filter(([, at]) => now - at < UNSERVED_MS).map(([queue]) => queue);
  }

  /** Lets every waiter go (e.g. on close). */
  wakeAll(): void {
    for (const id of [...this.#waiters.keys()]) this.#wake(id);
  }

  async close(): Promise<void> {
    this.wakeAll();
    const listening = this.#listening;
    this.#listening = undefined;
    this.#active = false;
    const stop = await listening;
    await stop?.().catch(() => {});
  }

  #listen(): void {
    const dispatcher = this.#dispatcher;
    if (dispatcher === undefined || this.#listening !== undefined) return;
    this.#listening = dispatcher
      .listen((id) => {
        const queue = presenceQueue(id);
        if (queue === undefined) this.#wake(id);
        else this.#served.set(queue, Date.now());
      })
      .then(
        (stop) => {
          this.#active = true;
          this.#since = Date.now();
          return stop;
        },
        () => undefined,
      );
  }

  #wake(id: string): void {
    const set = this.#waiters.get(id);
    if (set === undefined) return;
    this.#waiters.delete(id);
    for (const wake of set) wake();
  }
}
