import type { Redis } from 'ioredis';

import { CheckpointError, ConfigError, StoreUnavailableError } from '../errors.js';
import type { CheckpointRecord, CheckpointStore, ReadOptions } from './checkpoint-store.js';
import {
  ACQUIRE,
  APPEND,
  LOST_INDEX,
  LOST_LOG,
  READ,
  RELEASE,
  type Script,
} from './redis-scripts.js';
import { checkSessionId } from './session-id.js';
import { causeText, hasLoneSurrogate, readBound } from './store-helpers.js';

const STORE = 'RedisCheckpointStore';

/**
 * The part of an ioredis client the store uses. Any `Redis` or `Cluster` from `ioredis` fits; it is
 * typed here so that the library's types do not need `ioredis` installed.
 */
export interface RedisClient {
  evalsha(sha1: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
  get(key: string): Promise<string | null>;
}

/** Options of `RedisCheckpointStore`: a URL, or a client the caller owns. */
export type RedisCheckpointStoreOptions = (
  | { readonly url: string; readonly client?: never }
  | { readonly client: RedisClient; readonly url?: never }
) & {
  /** Prepended to every key the store writes; without `{` or `}`. @default 'baton:' */
  readonly keyPrefix?: string;
};

/**
 * Keeps step logs in Redis (through `ioredis`, an optional peer dependency loaded on first use),
 * for several app servers sharing sessions. Per session, under `<keyPrefix>{<encoded id>}:`
 * (one hash slot, so it works on Redis Cluster too):
 *
 * - `log`: a list of the records' data, each prefixed with `S` (snapshot) or `P` (patch);
 * - `snapshots`: a sorted set of the snapshot steps; the lowest is the log's first step;
 * - `lease`: the owner, set with a server-side expiry (`PX`).
 *
 * `append()`, `read()` and the lease changes are Lua scripts, so each is atomic. Data is stored
 * as its UTF-8 bytes, U+0000 included. Nothing expires but the lease.
 *
 * @example
 * const store = new RedisCheckpointStore({ url: 'redis://localhost:6379' });
 * const shared = new RedisCheckpointStore({ client, keyPrefix: 'desk:' }); // your ioredis client
 * @throws ConfigError when neither `url` nor `client` is given, or `keyPrefix` holds `{` or `}`.
 */
export class RedisCheckpointStore implements CheckpointStore {
  readonly #prefix: string;
  readonly #target: string;
  readonly #url: string | undefined;
  readonly #client: RedisClient | undefined;
  #ownClient: Promise<Redis> | undefined;
  #closed = false;

  constructor(options: RedisCheckpointStoreOptions) {
    const given = (options ?? {}) as { url?: unknown; client?: unknown; keyPrefix?: unknown };
    const prefix = given.keyPrefix ?? 'baton:';
    if (typeof prefix !== 'string' || /[{}]/.test(prefix)) {
      throw new ConfigError(
        `RedisCheckpointStore: \`keyPrefix\` must be a string without "{" or "}" (they would ` +
          `change the keys' hash slot), got ${JSON.stringify(prefix)}. Use e.g. "baton:".`,
        { path: 'keyPrefix' },
      );
    }
    this.#prefix = prefix;
    if (given.client !== undefined) {
      const client = given.client as Partial<RedisClient> | null;
      if (typeof client?.evalsha !== 'function' || given.url !== undefined) {
        throw new ConfigError(
          'RedisCheckpointStore: `client` must be an ioredis client, given without `url`. Pass ' +
            'one of the two.',
          { path: 'client' },
        );
      }
      this.#client = client as RedisClient;
      this.#target = describeClient(client);
    } else if (typeof given.url === 'string' && given.url !== '') {
      this.#url = given.url;
      this.#target = describeUrl(given.url);
    } else {
      throw new ConfigError(
        'RedisCheckpointStore needs a `url` (e.g. "redis://localhost:6379") or a `client` (an ' +
          'ioredis client).',
        { path: 'url' },
      );
    }
  }

  async append(sessionId: string, record: CheckpointRecord): Promise<boolean> {
    const { step, snapshot, data } = record;
    if (!Number.isSafeInteger(step) || step < 1) {
      throw new RangeError(
        `RedisCheckpointStore: step ${step} of session ${JSON.stringify(sessionId)} is not a ` +
          'positive integer. Number steps 1, 2, 3, ...',
      );
    }
    // UTF-8 would turn a lone surrogate into U+FFFD: refuse rather than change the data.
    if (typeof data !== 'string' || /\p{Cs}/u.test(data)) {
      throw new TypeError(
        `RedisCheckpointStore: the data of step ${step} of session ${JSON.stringify(sessionId)} ` +
          'is not well-formed text (a lone UTF-16 surrogate?). Encode it with JSON.stringify.',
      );
    }
    const keys = this.#logKeys(sessionId);
    const entry = `${snapshot ? 'S' : 'P'}${data}`;
    const action = `append step ${step} of session ${JSON.stringify(sessionId)}`;
    const reply = await this.#run(sessionId, action, APPEND, keys, [
      step,
      snapshot ? '1' : '0',
      entry,
    ]);
    return reply === 1;
  }

  async read(sessionId: string, options: ReadOptions = {}): Promise<CheckpointRecord[]> {
    const from = options.from ?? 'snapshot';
    const mode = typeof from === 'object' ? 'after' : from;
    const after =
      typeof from === 'object' ? readBound(STORE, from.after, 'after', Number.MAX_SAFE_INTEGER) : 0;
    const upTo = readBound(
      STORE,
      options.upTo ?? Number.MAX_SAFE_INTEGER,
      'upTo',
      Number.MAX_SAFE_INTEGER,
    );
    const action = `read session ${JSON.stringify(sessionId)}`;
    const keys = this.#logKeys(sessionId);
    const reply = await this.#run(sessionId, action, READ, keys, [mode, after, upTo]);
    const [first, entries] = reply as [number, string[]] | [];
    if (first === undefined || entries === undefined) return [];
    return entries.map((entry, i) => {
      const kind = entry[0];
      if (kind !== 'S' && kind !== 'P') {
        throw new CheckpointError(sessionId, first + i, 'its Redis entry has no S/P marker');
      }
      return { step: first + i, snapshot: kind === 'S', data: entry.slice(1) };
    });
  }

  async acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    if (typeof ttlMs !== 'number' || !(ttlMs > 0 && ttlMs <= 2_147_483_647)) {
      throw new RangeError(
        `RedisCheckpointStore: a lease lasts from 1 to 2147483647 ms, got ${ttlMs}. Pass a ` +
          'ttlMs of a few seconds.',
      );
    }
    const keys = [this.#leaseKey(sessionId)];
    const args = [checkText('lease owner', owner), Math.ceil(ttlMs)];
    return (await this.#run(sessionId, 'take a lease', ACQUIRE, keys, args)) === 1;
  }

  async releaseLease(sessionId: string, owner: string): Promise<void> {
    const keys = [this.#leaseKey(sessionId)];
    await this.#run(sessionId, 'release a lease', RELEASE, keys, [checkText('lease owner', owner)]);
  }

  async leaseHolder(sessionId: string): Promise<string | null> {
    const key = this.#leaseKey(sessionId);
    const client = await this.#connect();
    try {
      return await client.get(key);
    } catch (error) {
      throw this.#failure('read a lease', error);
    }
  }

  /** Closes the connection the store opened from `url`; a client passed in is left open. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const client = await this.#ownClient?.catch(() => undefined);
    if (client === undefined) return;
    if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
    else client.disconnect();
  }

  #logKeys(sessionId: string): string[] {
    const base = this.#base(sessionId);
    return [`${base}:log`, `${base}:snapshots`];
  }

  #leaseKey(sessionId: string): string {
    return `${this.#base(sessionId)}:lease`;
  }

  /** The session's key stem; encodeURIComponent keeps ids apart and escapes `{`, `}` and `:`. */
  #base(sessionId: string): string {
    checkSessionId(STORE, sessionId);
    return `${this.#prefix}{${encodeURIComponent(checkText('session id', sessionId))}}`;
  }

  async #run(
    sessionId: string,
    action: string,
    lua: Script,
    keys: string[],
    args: (string | number)[],
  ): Promise<unknown> {
    const client = await this.#connect();
    try {
      try {
        return await client.evalsha(lua.sha, keys.length, ...keys, ...args);
      } catch (error) {
        if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
        return await client.eval(lua.source, keys.length, ...keys, ...args);
      }
    } catch (error) {
      const message = String((error as Error)?.message);
      if (message.includes('BATON_CORRUPT')) {
        const detail = message.includes(LOST_LOG) ? LOST_LOG : LOST_INDEX;
        throw new CheckpointError(sessionId, 1, detail, { cause: error });
      }
      if (message.includes('WRONGTYPE')) {
        const detail =
          `a Redis key of session ${JSON.stringify(sessionId)} holds the wrong type of value ` +
          `(WRONGTYPE): something other than Baton wrote under ${JSON.stringify(this.#prefix)}`;
        throw new CheckpointError(sessionId, 1, detail, { cause: error });
      }
      throw this.#failure(action, error);
    }
  }

  async #connect(): Promise<RedisClient> {
    if (this.#closed) {
      throw new Error('RedisCheckpointStore is closed. Create a new store to use Redis again.');
    }
    if (this.#client !== undefined) return this.#client;
    this.#ownClient ??= this.#createClient().catch((error: unknown) => {
      this.#ownClient = undefined;
      throw error;
    });
    return this.#ownClient;
  }

  async #createClient(): Promise<Redis> {
    let ioredis: { Redis: typeof Redis };
    try {
      ioredis = await import('ioredis');
    } catch (error) {
      throw new ConfigError(
        'RedisCheckpointStore needs the `ioredis` package, which is not installed. Run ' +
          '`npm install ioredis`.',
        { cause: error },
      );
    }
    const client = new ioredis.Redis(this.#url as string, {
      lazyConnect: true,
      connectTimeout: 10_000,
      maxRetriesPerRequest: 3,
    });
    // ioredis reports why a connection failed only as an 'error' event (and logs it when nobody
    // listens); connect() itself rejects with "Connection is closed."
    let lastError: unknown;
    client.on('error', (error: unknown) => {
      lastError = error;
    });
    try {
      await client.connect();
    } catch (error) {
      client.disconnect();
      throw this.#failure('connect', lastError ?? error);
    }
    return client;
  }

  #failure(action: string, cause: unknown): Error {
    const detail = causeText(cause);
    const unreachable =
      /ECONN|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|closed|max retries|NOAUTH|WRONGPASS/i;
    if (unreachable.test(detail)) {
      const message =
        `RedisCheckpointStore cannot connect to Redis at ${this.#target}: ${detail}. Check that ` +
        'the server is running and reachable there, and the URL and password.';
      return new StoreUnavailableError(STORE, this.#target, message, { cause });
    }
    const message =
      `RedisCheckpointStore cannot ${action} on Redis at ${this.#target}: ${detail}. Check ` +
      'that no other program writes keys under this keyPrefix.';
    return new Error(message, { cause });
  }
}

/** Rejects strings UTF-8 cannot encode (lone surrogates), which would merge distinct ids. */
function checkText(what: string, value: string): string {
  if (typeof value !== 'string' || hasLoneSurrogate(value)) {
    throw new ConfigError(
      `RedisCheckpointStore: the ${what} ${JSON.stringify(value)} is not a string of ` +
        'well-formed text (a lone UTF-16 surrogate?). Use another one.',
      { path: what === 'session id' ? 'sessionId' : what },
    );
  }
  return value;
}

/** `host:port` (and database) of a Redis URL, without user name or password. */
function describeUrl(url: string): string {
  if (url.startsWith('/')) return `socket ${url}`;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed?.protocol !== 'redis:' && parsed?.protocol !== 'rediss:') {
    throw new ConfigError(
      'RedisCheckpointStore: `url` is not a URL like "redis://localhost:6379/0". Check its ' +
        'syntax (special characters in the password must be percent-encoded).',
      { path: 'url' },
    );
  }
  const database = parsed.pathname.length > 1 ? ` (database ${parsed.pathname.slice(1)})` : '';
  return `${parsed.hostname || 'localhost'}:${parsed.port || '6379'}${database}`;
}

function describeClient(client: object): string {
  const options = (client as { options?: Record<string, unknown> }).options ?? {};
  if (typeof options.path === 'string' && options.path !== '') return `socket ${options.path}`;
  const host = typeof options.host === 'string' ? options.host : 'localhost';
  return `${host}:${typeof options.port === 'number' ? options.port : 6379}`;
}
