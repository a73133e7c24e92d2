import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';

import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { CheckpointStore } from '../../src/checkpoint/checkpoint-store.js';
import {
  RedisCheckpointStore,
  type RedisCheckpointStoreOptions,
} from '../../src/checkpoint/redis-checkpoint-store.js';
import { CheckpointError, ConfigError, StoreUnavailableError } from '../../src/errors.js';
import {
  describeCheckpointStore,
  type StoreFixture,
} from '../contracts/checkpoint-store.contract.js';
import { describeSessionLifecycle } from '../contracts/session-lifecycle.contract.js';
import { SKIP_NOTES } from '../support/skip-notes.js';

const REDIS_URL = process.env.BATON_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const START =
  'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no ' +
  '(or unset BATON_REQUIRE_SERVICES to skip these tests)';

/** A client of the test server, or undefined (the tests skip) when the server is down. */
async function connect(): Promise<Redis | undefined> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let reason: unknown;
  client.on('error', (error: unknown) => {
    reason = error;
  });
  try {
    await client.connect();
    return client;
  } catch (error) {
    client.disconnect();
    if (process.env.BATON_REQUIRE_SERVICES === '1') {
      const where = new URL(REDIS_URL).host;
      // The client's 'error' event says why more precisely than the rejected connect().
      const detail = reason ?? error;
      throw new Error(`Redis is not reachable at ${where} (${detail}). Start it: ${START}`, {
        cause: error,
      });
    }
    return undefined;
  }
}

const uniquePrefix = () => `baton-test-${randomBytes(6).toString('hex')}:`;

/** Deletes every key under `prefix` (test prefixes hold no glob characters). */
async function deleteKeys(client: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await client.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

async function open(): Promise<StoreFixture | undefined> {
  const admin = await connect();
  if (admin === undefined) return undefined;
  const keyPrefix = uniquePrefix();
  const a = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix });
  const b = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix });
  return {
    a,
    b,
    async close() {
      await Promise.all([a.close(), b.close()]);
      await deleteKeys(admin, keyPrefix);
      await admin.quit();
    },
  };
}

describeCheckpointStore('RedisCheckpointStore', open);

describeSessionLifecycle('RedisCheckpointStore', async (clock) => {
  const admin = await connect();
  if (admin === undefined) return undefined;
  const keyPrefix = uniquePrefix();
  const a = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix, clock });
  const b = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix, clock });
  return {
    a,
    b,
    // The session's own keys, and its entries in the shared index keys.
    async traces(sessionId) {
      const traces: string[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await admin.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
        for (const key of keys) {
          if (key.includes(`{${encodeURIComponent(sessionId)}}`)) traces.push(key);
          const type = await admin.type(key);
          if (type === 'zset' && (await admin.zscore(key, sessionId)) !== null) traces.push(key);
          if (type === 'hash' && (await admin.hexists(key, sessionId)) === 1) traces.push(key);
        }
        cursor = next;
      } while (cursor !== '0');
      return traces;
    },
    async close() {
      await Promise.all([a.close(), b.close()]);
      await deleteKeys(admin, keyPrefix);
      await admin.quit();
    },
  };
});

describe('RedisCheckpointStore', () => {
  let admin: Redis | undefined;
  const prefixes: string[] = [];
  const prefix = () => {
    const name = uniquePrefix();
    prefixes.push(name);
    return name;
  };

  beforeAll(async () => {
    admin = await connect();
  });
  afterAll(async () => {
    if (admin === undefined) return;
    for (const name of prefixes) await deleteKeys(admin, name);
    await admin.quit();
  });

  it('rejects options without a URL or client, or with a bad key prefix', () => {
    const make = (options: unknown) => () =>
      new RedisCheckpointStore(options as RedisCheckpointStoreOptions);
    expect(make({})).toThrow(ConfigError);
    expect(make(undefined)).toThrowErrorMatchingInlineSnapshot(
      `[ConfigError: RedisCheckpointStore needs a \`url\` (e.g. "redis://localhost:6379") or a \`client\` (an ioredis client).]`,
    );
    expect(make({ url: '' })).toThrow(ConfigError);
    expect(make({ url: 'http://localhost:6379' })).toThrow(/is not a URL like/);
    expect(make({ client: {} })).toThrow(/`client` must be an ioredis client/);
    expect(make({ url: REDIS_URL, keyPrefix: 'app{1}:' })).toThrowError(
      expect.objectContaining({ name: 'ConfigError', path: 'keyPrefix' }),
    );
  });

  it('names host and port, but never the password, when it cannot connect', async () => {
    const password = 's3cr3t-Pa55';
    const store = new RedisCheckpointStore({ url: `redis://:${password}@127.0.0.1:1/2` });
    const error: unknown = await store.read('s').catch((e: unknown) => e);
    await store.close();
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({
      name: 'StoreUnavailableError',
      store: 'RedisCheckpointStore',
      target: '127.0.0.1:1 (database 2)',
    });
    expect((error as Error).message).toMatch(
      /^RedisCheckpointStore cannot connect to Redis at 127\.0\.0\.1:1 \(database 2\): .*ECONNREFUSED.*Check that the server is running/,
    );
    expect(inspect(error, { depth: 10 })).not.toContain(password);
    expect(JSON.stringify(error)).not.toContain(password);
  });

  it('uses a client it is given and leaves it open on close()', async (ctx) => {
    if (admin === undefined) return ctx.skip(SKIP_NOTES.redis);
    const client = new Redis(REDIS_URL);
    const store: CheckpointStore = new RedisCheckpointStore({ client, keyPrefix: prefix() });
    expect(await store.append('s', { step: 1, snapshot: true, data: 'one' })).toBe(true);
    await store.close();
    expect(await client.ping()).toBe('PONG');
    await expect(store.read('s')).rejects.toThrow('RedisCheckpointStore is closed');
    await client.quit();
  });

  it('keeps a session under one hash tag, with its id encoded, and indexes it', async (ctx) => {
    if (admin === undefined) return ctx.skip(SKIP_NOTES.redis);
    const keyPrefix = prefix();
    const store = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix });
    await store.append('a}{b:c', { step: 1, snapshot: true, data: 'one' });
    await store.acquireLease('a}{b:c', 'owner', 5_000);
    await store.close();
    const keys = await admin.keys(`${keyPrefix}*`);
    expect(keys.sort()).toEqual([
      `${keyPrefix}sessions`,
      `${keyPrefix}steps`,
      `${keyPrefix}{a%7D%7Bb%3Ac}:lease`,
      `${keyPrefix}{a%7D%7Bb%3Ac}:log`,
      `${keyPrefix}{a%7D%7Bb%3Ac}:snapshots`,
    ]);
    expect(await admin.hgetall(`${keyPrefix}steps`)).toEqual({ 'a}{b:c': '1' });
    expect(await admin.pttl(`${keyPrefix}{a%7D%7Bb%3Ac}:lease`)).toBeGreaterThan(4_000);
  });

  it('reports a log whose snapshot index was deleted as a CheckpointError', async (ctx) => {
    if (admin === undefined) return ctx.skip(SKIP_NOTES.redis);
    const keyPrefix = prefix();
    const store = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix });
    await store.append('s', { step: 1, snapshot: true, data: 'one' });
    await admin.del(`${keyPrefix}{s}:snapshots`);
    await expect(store.append('s', { step: 2, snapshot: false, data: 'two' })).rejects.toThrow(
      CheckpointError,
    );
    await store.close();
  });

  it('reads a log whose snapshot index or list was deleted as a CheckpointError, not an empty session', async (ctx) => {
    if (admin === undefined) return ctx.skip();
    for (const lost of ['snapshots', 'log']) {
      const keyPrefix = prefix();
      const store = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix });
      await store.append('s', { step: 1, snapshot: true, data: 'one' });
      await store.append('s', { step: 2, snapshot: false, data: 'two' });
      await admin.del(`${keyPrefix}{s}:${lost}`);
      for (const from of ['snapshot', 'start'] as const) {
        const error: unknown = await store.read('s', { from }).catch((e: unknown) => e);
        expect([lost, from, error]).toEqual([lost, from, expect.any(CheckpointError)]);
        expect((error as CheckpointError).sessionId).toBe('s');
      }
      const append = store.append('s', { step: 1, snapshot: true, data: 'new' });
      await expect(append).rejects.toThrow(CheckpointError);
      await store.close();
    }
  });

  it('reports a log key of the wrong type as a CheckpointError naming the key', async (ctx) => {
    if (admin === undefined) return ctx.skip();
    const keyPrefix = prefix();
    const store = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix });
    await admin.set(`${keyPrefix}{s}:log`, 'not a list');
    await admin.zadd(`${keyPrefix}{s}:snapshots`, 1, '1');
    for (const work of [
      () => store.read('s'),
      () => store.append('s', { step: 1, snapshot: true, data: 'one' }),
    ]) {
      const error: unknown = await work().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CheckpointError);
      expect((error as Error).message).toContain(
        `a Redis key of session "s" holds the wrong type of value (WRONGTYPE)`,
      );
    }
    await store.close();
  });

  it('refuses text that UTF-8 would change', async (ctx) => {
    if (admin === undefined) return ctx.skip(SKIP_NOTES.redis);
    const store = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix: prefix() });
    await expect(
      store.append('s', { step: 1, snapshot: true, data: 'half \ud83d' }),
    ).rejects.toThrow(TypeError);
    await expect(store.read('half \udc00 id')).rejects.toThrow(/lone UTF-16 surrogate/);
    await expect(store.read('half \udc00 id')).rejects.toBeInstanceOf(ConfigError);
    await expect(store.append('s', { step: 0, snapshot: true, data: '' })).rejects.toThrow(
      RangeError,
    );
    await expect(store.acquireLease('s', 'one', 0)).rejects.toThrow(RangeError);
    expect(await store.read('s')).toEqual([]);
    await store.close();
  });
});
