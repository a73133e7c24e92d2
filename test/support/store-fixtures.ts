import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Redis } from 'ioredis';
import pg from 'pg';

import { FileCheckpointStore } from '../../src/checkpoint/file-checkpoint-store.js';
import { MemoryCheckpointStore } from '../../src/checkpoint/memory-checkpoint-store.js';
import { PostgresCheckpointStore } from '../../src/checkpoint/postgres-checkpoint-store.js';
import { RedisCheckpointStore } from '../../src/checkpoint/redis-checkpoint-store.js';
import type { StoreFixture } from '../contracts/checkpoint-store.contract.js';
import { dropStatement } from '../../src/checkpoint/postgres-sql.js';

const DATABASE_URL =
  process.env.BATON_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BATON_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const required = () => process.env.BATON_REQUIRE_SERVICES === '1';
const unique = () => randomBytes(6).toString('hex');

/** One store seen from two "processes" (`a` and `b`) with nothing in between but the store. */
export type OpenStores = () => Promise<StoreFixture | undefined>;

export const openMemory: OpenStores = async () => {
  const store = new MemoryCheckpointStore();
  return { a: store, b: store, close: () => store.close() };
};

export const openFile: OpenStores = async () => {
  const directory = await mkdtemp(join(tmpdir(), 'baton-team-store-'));
  return {
    a: new FileCheckpointStore(directory),
    b: new FileCheckpointStore(directory),
    close: () => rm(directory, { recursive: true, force: true }),
  };
};

/** Two Postgres stores on one fresh table; undefined (skip) when the server is down. */
export const openPostgres: OpenStores = async () => {
  const admin = new pg.Pool({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await admin.query('SELECT 1');
  } catch (error) {
    await admin.end();
    if (required()) throw new Error(`PostgreSQL is not reachable (${error}).`, { cause: error });
    return undefined;
  }
  const table = `baton_test_${unique()}`;
  const a = new PostgresCheckpointStore({ connectionString: DATABASE_URL, table });
  const b = new PostgresCheckpointStore({ connectionString: DATABASE_URL, table });
  return {
    a,
    b,
    async close() {
      await Promise.all([a.close(), b.close()]);
      await admin.query(dropStatement(table));
      await admin.end();
    },
  };
};

/** Two Redis stores under one fresh key prefix; undefined (skip) when the server is down. */
export const openRedis: OpenStores = async () => {
  const admin = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  admin.on('error', () => undefined);
  try {
    await admin.connect();
  } catch (error) {
    admin.disconnect();
    if (required()) throw new Error(`Redis is not reachable (${error}).`, { cause: error });
    return undefined;
  }
  const keyPrefix = `baton-test-${unique()}:`;
  const a = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix });
  const b = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix });
  return {
    a,
    b,
    async close() {
      await Promise.all([a.close(), b.close()]);
      let cursor = '0';
      do {
        const [next, keys] = await admin.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await admin.del(...keys);
        cursor = next;
      } while (cursor !== '0');
      await admin.quit();
    },
  };
};
