/** A Redis connection as a subscriber uses it. */
export interface RedisSubscriber {
  subscribe(channel: string): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  quit(): Promise<unknown>;
}

/**
 * The subscriber connections of a dispatcher (Redis pub/sub takes a connection of its own per
 * subscriber): one per channel listened to, each stopped alone or all at once on close.
 */
export class RedisSubscribers {
  readonly #connect: () => Promise<RedisSubscriber>;
  readonly #open = new Set<RedisSubscriber>();

  constructor(connect: () => Promise<RedisSubscriber>) {
    this.#connect = connect;
  }

  /** Hears every message on channel `name`; resolves to a function that stops it. */
  async subscribe(name: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    const subscriber = await this.#connect();
    subscriber.on('error', () => {});
    subscriber.on('message', (channel, message) => {
      if (channel === name) listener(message);
    });
    this.#open.add(subscriber);
    await subscriber.subscribe(name);
    return async () => {
      if (this.#open.delete(subscriber)) await subscriber.quit().catch(() => {});
    };
  }

  async close(): Promise<void> {
    const open = [...this.#open];
    this.#open.clear();
    await Promise.all(open.map((s) => s.quit().catch(() => {})));
  }
}
