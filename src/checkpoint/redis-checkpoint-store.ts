import type { Redis } from 'ioredis';

import { CheckpointError, ConfigError } from '../errors.js';
import { isRecord, messageOf } from '../unknown-value.js';
import type { CheckpointRecord, CheckpointStore, ReadOptions } from './checkpoint-store.js';
import {
  ACQUIRE,
  APPEND,
  DELETE,
  deleteReply,
  idsReply,
  LIST,
  listReply,
  LOST_INDEX,
  LOST_LOG,
  OLDER,
  READ,
  readReply,
  RELEASE,
  type Script,
} from './redis-scripts.js';
import { checkText, openRedisClient, redisFailure } from './redis-connection.js';
import { describeClient, describeUrl } from './redis-target.js';
import { checkSessionId } from './session-id.js';
import {
  type AppendOptions,
  cutoffOf,
  type ListOptions,
  listQuery,
  ownerOf,
  type SessionPage,
  toPage,
} from './session-list.js';
import { readBound } from './store-helpers.js';

const STORE = 'RedisCheckpointStore';

function isClient(value: unknown): value is RedisClient {
  return isRecord(value) && typeof value.evalsha === 'function';
}

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
  /** Gives each commit's time (ms since the epoch), the `updatedAt` of `list()`. @default Date.now */
  readonly clock?: () => number;
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
 * and, for `list()` and `deleteOlderThan()`, kept by the same scripts: `<keyPrefix>sessions` (a
 * sorted set of the ids by `updatedAt` in ms), `<keyPrefix>owner:<owner>` (the same, per owner),
 * `<keyPrefix>steps` and `<keyPrefix>owners` (hashes of each id's last step and owner). These keys
 * span hash slots, so the store needs a single Redis server (not Cluster). Sessions written before
 * these keys existed are listed from their next append on.
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
  /** Every machine reaching the server sees the same sessions. */
  readonly shared = true;
  readonly #prefix: string;
  readonly #target: string;
  readonly #url: string | undefined;
  readonly #client: RedisClient | undefined;
  readonly #clock: () => number;
  #ownClient: Promise<Redis> | undefined;
  #closed = false;

  constructor(options: RedisCheckpointStoreOptions) {
    // Read as `unknown`: a caller in plain JavaScript may pass anything.
    const given: {
      url?: unknown;
      client?: unknown;
      keyPrefix?: unknown;
      clock?: () => number;
    } = options ?? {};
    this.#clock = given.clock ?? Date.now;
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
      const client = given.client;
      if (!isClient(client) || given.url !== undefined) {
        throw new ConfigError(
          'RedisCheckpointStore: `client` must be an ioredis client, given without `url`. Pass ' +
            'one of the two.',
          { path: 'client' },
        );
      }
      this.#client = client;
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

  async append(
    sessionId: string,
    record: CheckpointRecord,
    options?: AppendOptions,
  ): Promise<boolean> {
    const { step, snapshot, data } = record;
    const owner = ownerOf(STORE, options);
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
    const keys = [...this.#logKeys(sessionId), this.#index(), ...this.#infoKeys()];
    const entry = `${snapshot ? 'S' : 'P'}${data}`;
    const action = `append step ${step} of session ${JSON.stringify(sessionId)}`;
    const reply = await this.#run(sessionId, action, APPEND, keys, [
      step,
      snapshot ? '1' : '0',
      entry,
      sessionId,
      Math.round(this.#clock()),
      owner === undefined ? '0' : '1',
      owner === undefined ? '' : checkText('owner', owner),
      this.#prefix,
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
    if (!Array.isArray(reply) || reply.length === 0) return [];
    const [first, entries] = readReply.parse(reply);
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

  async delete(sessionId: string): Promise<boolean> {
    const [hadLog] = await this.#delete(sessionId, '');
    return hadLog === 1;
  }

  async list(options?: ListOptions): Promise<SessionPage> {
    const { owner, after, limit } = listQuery(STORE, options);
    const index = owner === undefined ? this.#index() : this.#index(checkText('owner', owner));
    const args = [after === undefined ? '0' : '1', after?.at ?? 0, after?.id ?? '', limit + 1];
    const keys = [index, ...this.#infoKeys()];
    const reply = listReply.parse(await this.#run('', 'list sessions', LIST, keys, args));
    const entries = [];
    for (let i = 0; i < reply.length; i += 4) {
      const [id, at, step, by] = reply.slice(i, i + 4);
      entries.push({ id: String(id), owner: by ?? undefined, step: Number(step), at: Number(at) });
    }
    return toPage(entries, limit);
  }

  async deleteOlderThan(date: Date): Promise<number> {
    const cutoff = Math.ceil(cutoffOf(STORE, date));
    let deleted = 0;
    for (;;) {
      const ids = idsReply.parse(
        await this.#run('', 'list old sessions', OLDER, [this.#index()], [cutoff, 100]),
      );
      if (ids.length === 0) return deleted;
      for (const id of ids) deleted += (await this.#delete(id, cutoff))[1];
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

  /** Deletes the session (only when last updated before `before`, unless it is ''). */
  async #delete(sessionId: string, before: number | ''): Promise<[number, number]> {
    const keys = [...this.#logKeys(sessionId), this.#leaseKey(sessionId), this.#index()];
    keys.push(...this.#infoKeys());
    const action = `delete session ${JSON.stringify(sessionId)}`;
    return deleteReply.parse(
      await this.#run(sessionId, action, DELETE, keys, [sessionId, this.#prefix, before]),
    );
  }

  /** The sorted set of every session by `updatedAt`, or of one owner's. */
  #index(owner?: string): string {
    return owner === undefined ? `${this.#prefix}sessions` : `${this.#prefix}owner:${owner}`;
  }

  /** The hashes of each session's last step and owner. */
  #infoKeys(): string[] {
    return [`${this.#prefix}steps`, `${this.#prefix}owners`];
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
        if (!messageOf(error).startsWith('NOSCRIPT')) throw error;
        return await client.eval(lua.source, keys.length, ...keys, ...args);
      }
    } catch (error) {
      const message = messageOf(error);
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
    // The constructor sets `url` whenever it sets no `client`.
    this.#ownClient ??= openRedisClient(this.#url ?? '', this.#target).catch((error: unknown) => {
      this.#ownClient = undefined;
      throw error;
    });
    return this.#ownClient;
  }

  #failure(action: string, cause: unknown): Error {
    return redisFailure(this.#target, action, cause);
  }
}
