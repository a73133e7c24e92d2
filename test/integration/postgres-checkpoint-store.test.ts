import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { CheckpointStore } from '../../src/checkpoint/checkpoint-store.js';
import {
  PostgresCheckpointStore,
  type PostgresCheckpointStoreOptions,
} from '../../src/checkpoint/postgres-checkpoint-store.js';
import { dropStatement } from '../../src/checkpoint/postgres-sql.js';
import { ConfigError, StoreUnavailableError } from '../../src/errors.js';
import {
  describeCheckpointStore,
  type StoreFixture,
} from '../contracts/checkpoint-store.contract.js';
import { describeSessionLifecycle } from '../contracts/session-lifecycle.contract.js';
import { SKIP_NOTES } from '../support/skip-notes.js';

const DATABASE_URL =
  process.env.BATON_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const START =
  'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start ' +
  '(or unset BATON_REQUIRE_SERVICES to skip these tests)';

/** A pool on the test database, or undefined (the tests skip) when the server is down. */
async function connect(): Promise<pg.Pool | undefined> {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await pool.query('SELECT 1');
    return pool;
  } catch (error) {
    await pool.end();
    if (process.env.BATON_REQUIRE_SERVICES === '1') {
      const where = new URL(DATABASE_URL).host;
      throw new Error(`PostgreSQL is not reachable at ${where} (${error}). Start it: ${START}`, {
        cause: error,
      });
    }
    return undefined;
  }
}

const uniqueTable = () => `baton_test_${randomBytes(6).toString('hex')}`;
const dropTables = (pool: pg.Pool, table: string) => pool.query(dropStatement(table));

async function open(): Promise<StoreFixture | undefined> {
  const admin = await connect();
  if (admin === undefined) return undefined;
  const table = uniqueTable();
  const a = new PostgresCheckpointStore({ connectionString: DATABASE_URL, table });
  const b = new PostgresCheckpointStore({ connectionString: DATABASE_URL, table });
  return {
    a,
    b,
    async close() {
      await Promise.all([a.close(), b.close()]);
      await dropTables(admin, table);
      await admin.end();
    },
  };
}

describeCheckpointStore('PostgresCheckpointStore', open);

describeSessionLifecycle('PostgresCheckpointStore', async (clock) => {
  const admin = await connect();
  if (admin === undefined) return undefined;
  const table = uniqueTable();
  const a = new PostgresCheckpointStore({ connectionString: DATABASE_URL, table, clock });
  const b = new PostgresCheckpointStore({ connectionString: DATABASE_URL, table, clock });
  return {
    a,
    b,
    // How many rows of the session each of the store's tables holds.
    async traces(sessionId) {
      const traces: string[] = [];
      for (const kind of ['checkpoints', 'leases', 'sessions']) {
        const { rows } = await admin.query<{ n: number }>(
          `SELECT count(*)::integer AS n FROM "${table}_${kind}" WHERE session_id = $1`,
          [sessionId],
        );
        if ((rows[0]?.n ?? 0) > 0) traces.push(`${kind}: ${rows[0]?.n}`);
      }
      return traces;
    },
    async close() {
      await Promise.all([a.close(), b.close()]);
      await dropTables(admin, table);
      await admin.end();
    },
  };
});

describe('PostgresCheckpointStore', () => {
  let admin: pg.Pool | undefined;
  const tables: string[] = [];
  const table = () => {
    const name = uniqueTable();
    tables.push(name);
    return name;
  };

  beforeAll(async () => {
    admin = await connect();
  });
  afterAll(async () => {
    if (admin === undefined) return;
    for (const name of tables) await dropTables(admin, name);
    await admin.end();
  });

  it('rejects options without a connection string or pool, or with a bad table name', () => {
    const make = (options: unknown) => () =>
      new PostgresCheckpointStore(options as PostgresCheckpointStoreOptions);
    expect(make({})).toThrow(ConfigError);
    expect(make(undefined)).toThrowErrorMatchingInlineSnapshot(
      `[ConfigError: PostgresCheckpointStore needs a \`connectionString\` (e.g. "postgres://user@localhost:5432/app") or a \`pool\` (a pg.Pool).]`,
    );
    expect(make({ connectionString: '' })).toThrow(ConfigError);
    expect(make({ pool: {} })).toThrow(/`pool` must be a pg.Pool/);
    expect(make({ connectionString: 'not a url' })).toThrow(/is not a URL/);
    expect(make({ connectionString: DATABASE_URL, table: 'Robert"; DROP TABLE x' })).toThrowError(
      expect.objectContaining({ name: 'ConfigError', path: 'table' }),
    );
    expect(make({ connectionString: DATABASE_URL, table: 'x'.repeat(41) })).toThrow(ConfigError);
  });

  it('adds its sessions table to tables of an earlier version, filled from their logs', async (ctx) => {
    if (admin === undefined) return ctx.skip(SKIP_NOTES.postgres);
    const name = table();
    // The tables as the store created them before list() existed, with two sessions.
    await admin.query(`
      CREATE TABLE "${name}_checkpoints" (
        session_id text NOT NULL, step integer NOT NULL, snapshot boolean NOT NULL,
        opens_log boolean NOT NULL, data bytea NOT NULL,
        written_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (session_id, step));
      CREATE TABLE "${name}_leases" (
        session_id text PRIMARY KEY, owner text NOT NULL, expires_at timestamptz NOT NULL);
      INSERT INTO "${name}_checkpoints" VALUES
        ('old-a', 1, true, true, 'a1', '2026-01-01T00:00:00.123456Z'),
        ('old-a', 2, false, false, 'a2', '2026-01-02T00:00:00.5Z'),
        ('old-b', 1, true, true, 'b1', '2026-01-03T00:00:00Z');`);
    const store = new PostgresCheckpointStore({
      connectionString: DATABASE_URL,
      table: name,
      clock: () => Date.parse('2026-02-01T00:00:00Z'),
    });
    try {
      expect(await store.list()).toEqual({
        sessions: [
          { id: 'old-b', step: 1, updatedAt: '2026-01-03T00:00:00.000Z' },
          { id: 'old-a', step: 2, updatedAt: '2026-01-02T00:00:00.500Z' },
        ],
      });
      expect(await store.append('old-a', { step: 3, snapshot: false, data: 'a3' })).toBe(true);
      expect((await store.list({ limit: 1 })).sessions).toEqual([
        { id: 'old-a', step: 3, updatedAt: '2026-02-01T00:00:00.000Z' },
      ]);
      expect(await store.deleteOlderThan(new Date('2026-01-15T00:00:00Z'))).toBe(1);
      expect(await store.read('old-b', { from: 'start' })).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('names host and port, but never the password, when it cannot connect', async () => {
    const password = 's3cr3t-Pa55';
    const store = new PostgresCheckpointStore({
      connectionString: `postgres://postgres:${password}@127.0.0.1:1/test`,
    });
    const error: unknown = await store.read('s').catch((e: unknown) => e);
    await store.close();
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({
      name: 'StoreUnavailableError',
      store: 'PostgresCheckpointStore',
      target: '127.0.0.1:1 (database "test")',
    });
    expect((error as Error).message).toMatch(
      /^PostgresCheckpointStore cannot connect to PostgreSQL at 127\.0\.0\.1:1 \(database "test"\): .*ECONNREFUSED.*Check that the server is running/,
    );
    expect(inspect(error, { depth: 10 })).not.toContain(password);
    expect(JSON.stringify(error)).not.toContain(password);
  });

  it('creates its tables once when many stores start at once', async (ctx) => {
    if (admin === undefined) return ctx.skip(SKIP_NOTES.postgres);
    const name = table();
    const stores = Array.from(
      { length: 8 },
      () => new PostgresCheckpointStore({ connectionString: DATABASE_URL, table: name }),
    );
    const results = await Promise.all(
      stores.map((s, i) => s.append(`session ${i}`, { step: 1, snapshot: true, data: `${i}` })),
    );
    await Promise.all(stores.map((s) => s.close()));
    expect(results).toEqual(Array(8).fill(true));
  });

  it('starts beside a writer without locking its tables', async (ctx) => {
    if (admin === undefined) return ctx.skip(SKIP_NOTES.postgres);
    const name = table();
    const first = new PostgresCheckpointStore({ connectionString: DATABASE_URL, table: name });
    expect(await first.append('s', { step: 1, snapshot: true, data: 'one' })).toBe(true);
    // A writer in the middle of a transaction holds the tables' ROW EXCLUSIVE locks.
    const writer = await admin.connect();
    await writer.query('BEGIN');
    const all = ['checkpoints', 'sessions', 'leases'].map((t) => `"${name}_${t}"`).join(', ');
    await writer.query(`LOCK TABLE ${all} IN ROW EXCLUSIVE MODE`);
    // A store starting now: a lock it had to wait for fails it after lock_timeout (not a hang).
    const url = new URL(DATABASE_URL);
    url.searchParams.set('options', '-c lock_timeout=3000');
    const second = new PostgresCheckpointStore({ connectionString: url.href, table: name });
    try {
      expect((await second.read('s')).map((record) => record.data)).toEqual(['one']);
    } finally {
      await writer.query('COMMIT');
      writer.release();
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('reports a lock timeout as the server refusing the append, not as out of reach', async (ctx) => {
    if (admin === undefined) return ctx.skip(SKIP_NOTES.postgres);
    const name = table();
    const url = new URL(DATABASE_URL);
    url.searchParams.set('options', '-c lock_timeout=200');
    const store = new PostgresCheckpointStore({ connectionString: url.href, table: name });
    expect(await store.append('s', { step: 1, snapshot: true, data: 'one' })).toBe(true);
    const holder = await admin.connect();
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE "${name}_checkpoints" IN ACCESS EXCLUSIVE MODE`);
    try {
      const failed = await store.append('s', { step: 2, snapshot: false, data: 'two' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(Error);
      expect(failed).not.toBeInstanceOf(StoreUnavailableError);
      expect((failed as Error).message).toMatch(
        /^PostgresCheckpointStore cannot append step 2 of session "s" on PostgreSQL at 127\.0\.0\.1:5432 .*lock timeout/,
      );
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await store.append('s', { step: 2, snapshot: false, data: 'two' })).toBe(true);
    await store.close();
  });

  it('starts under another database role than the one that made its tables', async (ctx) => {
    if (admin === undefined) return ctx.skip(SKIP_NOTES.postgres);
    const name = table();
    const role = `baton_role_${randomBytes(4).toString('hex')}`;
    const first = new PostgresCheckpointStore({ connectionString: DATABASE_URL, table: name });
    expect(await first.append('s', { step: 1, snapshot: true, data: 'one' })).toBe(true);
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    try {
      const all = ['checkpoints', 'sessions', 'leases'].map((t) => `"${name}_${t}"`).join(', ');
      await admin.query(`GRANT USAGE, CREATE ON SCHEMA public TO ${role}`);
      await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${all} TO ${role}`);
      const url = new URL(DATABASE_URL);
      url.username = role;
      const other = new PostgresCheckpointStore({ connectionString: url.href, table: name });
      try {
        expect(await other.append('s', { step: 2, snapshot: false, data: 'two' })).toBe(true);
        expect((await other.read('s')).map((record) => record.data)).toEqual(['one', 'two']);
      } finally {
        await other.close();
      }
    } finally {
      await first.close();
      await admin.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
    }
  });

  it('uses a pool it is given and leaves it open on close()', async (ctx) => {
    if (admin === undefined) return ctx.skip(SKIP_NOTES.postgres);
    const pool = new pg.Pool({ connectionString: DATABASE_URL });
    const store: CheckpointStore = new PostgresCheckpointStore({ pool, table: table() });
    expect(await store.append('s', { step: 1, snapshot: true, data: 'one' })).toBe(true);
    await store.close();
    expect(pool.ended).toBe(false);
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await expect(store.read('s')).rejects.toThrow('PostgresCheckpointStore is closed');
    await pool.end();
  });

  it('stores data as UTF-8 bytes that SQL can read back', async (ctx) => {
    if (admin === undefined) return ctx.skip(SKIP_NOTES.postgres);
    const name = table();
    const store = new PostgresCheckpointStore({ connectionString: DATABASE_URL, table: name });
    await store.append('s', { step: 1, snapshot: true, data: '{"text":"ünï 🚀"}' });
    await store.close();
    const { rows } = await admin.query(
      `SELECT convert_from(data, 'UTF8')::jsonb AS data, opens_log FROM "${name}_checkpoints"`,
    );
    expect(rows).toEqual([{ data: { text: 'ünï 🚀' }, opens_log: true }]);
  });

  it('refuses text that PostgreSQL or UTF-8 would change', async (ctx) => {
    if (admin === undefined) return ctx.skip(SKIP_NOTES.postgres);
    const store = new PostgresCheckpointStore({ connectionString: DATABASE_URL, table: table() });
    await expect(
      store.append('s', { step: 1, snapshot: true, data: 'half \ud83d' }),
    ).rejects.toThrow(TypeError);
    await expect(store.read('nul \u0000 id')).rejects.toThrow(/without U\+0000/);
    await expect(store.read('nul \u0000 id')).rejects.toBeInstanceOf(ConfigError);
    await expect(store.append('s', { step: 0, snapshot: true, data: '' })).rejects.toThrow(
      RangeError,
    );
    await expect(store.acquireLease('s', 'one', 0)).rejects.toThrow(RangeError);
    expect(await store.read('s')).toEqual([]);
    await store.close();
  });
});
