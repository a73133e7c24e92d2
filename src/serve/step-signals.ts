import type { Dispatcher } from '../workers/dispatcher.js';

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
      .listen((id) => this.#wake(id))
      .then(
        (stop) => {
          this.#active = true;
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
