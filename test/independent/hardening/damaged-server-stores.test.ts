import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

import {
  Agent,
  CheckpointError,
  type CheckpointStore,
  HandoffBuilder,
  PostgresCheckpointStore,
  RedisCheckpointStore,
  ScriptedChatClient,
  scriptedText,
} from '../../../src/index.js';
import { asPatchBody, threadLengthAfter } from '../../support/step-records.js';
import { dropStatement } from '../../../src/checkpoint/postgres-sql.js';

/**
 * Issue 12, items 4 and 5, on the server stores: the same rule as the file store. A deleted or
 * mistyped key, a missing or garbled row, a forged head insert: a CheckpointError naming the
 * session, never an empty session and never a raw driver error.
 *
 * Formats learned from what the stores write: Redis keeps `<prefix>{<id>}:log` (a list of
 * `S|P` + 8 hex CRC-32 over `${id}\n${step}\n${body}` + body) and `<prefix>{<id>}:snapshots`
 * (a sorted set of snapshot steps); Postgres keeps rows `(session_id, step, snapshot, opens_log,
 * data bytea)` in `<table>_checkpoints`.
 */

const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = 'redis://127.0.0.1:6379';
const REQUIRE = process.env.BATON_REQUIRE_SERVICES === '1';
const unique = () => randomBytes(6).toString('hex');

async function postgresUp(): Promise<boolean> {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await pool.query('SELECT 1');
    return true;
  } catch (error) {
    if (REQUIRE)
      throw new Error(`PostgreSQL is not reachable at 127.0.0.1:5432: ${String(error)}`, {
        cause: error,
      });
    return false;
  } finally {
    await pool.end();
  }
}

async function redisUp(): Promise<boolean> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.quit();
    return true;
  } catch (error) {
    client.disconnect();
    if (REQUIRE)
      throw new Error(`Redis is not reachable at 127.0.0.1:6379: ${String(error)}`, {
        cause: error,
      });
    return false;
  }
}

const PG = await postgresUp();
const REDIS = await redisUp();

/** A fresh workflow object over `store`, as another process would build it. */
function desk(store: CheckpointStore, ...answers: string[]) {
  const helper = new Agent({
    name: 'helper',
    client: new ScriptedChatClient(answers.map((a) => scriptedText(a))),
  });
  return new HandoffBuilder({ name: 'damaged', participants: [helper] })
    .coordinator(helper)
    .withCheckpointing(store)
    .build();
}

/** Writes a four-step session `id` (user, answer+pause, user, answer+pause). */
async function written(store: CheckpointStore, id: string) {
  const workflow = desk(store, 'Which invoice?', 'INV-1 is refunded. Anything else?');
  await workflow.session(id).run('Where is my refund?');
  await workflow.session(id).run('INV-1');
  expect((await desk(store).session(id).checkpoints()).map((c) => c.step)).toEqual([1, 2, 3, 4]);
}

/** info(), messages() and run() all reject with a CheckpointError naming the session. */
async function refused(store: CheckpointStore, id: string) {
  const session = desk(store, 'A fresh start?').session(id);
  for (const read of [() => session.info(), () => session.messages(), () => session.run('hi')]) {
    const error = await read().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as Error).message).toContain(`"${id}"`);
    expect((error as Error).message).not.toMatch(/^WRONGTYPE/);
  }
}

describe.skipIf(!REDIS)(
  'RedisCheckpointStore: damaged keys (item 4) and forged records (item 5)',
  () => {
    const keyPrefix = `baton-i12-damage-${unique()}:`;
    const store = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix });
    const admin = new Redis(REDIS_URL);
    afterAll(async () => {
      await store.close();
      const keys = await admin.keys(`${keyPrefix}*`);
      if (keys.length > 0) await admin.del(...keys);
      await admin.quit();
    });
    const log = (id: string) => `${keyPrefix}{${id}}:log`;
    const snapshots = (id: string) => `${keyPrefix}{${id}}:snapshots`;

    it('control: the keys are where this suite expects them', async () => {
      const id = `s-${unique()}`;
      await written(store, id);
      expect(await admin.type(log(id))).toBe('list');
      expect(await admin.type(snapshots(id))).toBe('zset');
      expect(await admin.llen(log(id))).toBe(4);
    });

    it('a deleted snapshot key → CheckpointError, not an empty session', async () => {
      const id = `s-${unique()}`;
      await written(store, id);
      await admin.del(snapshots(id));
      await refused(store, id);
      expect(await admin.llen(log(id))).toBe(4);
    });

    it('a deleted log key with its snapshot index left → CheckpointError', async () => {
      const id = `s-${unique()}`;
      await written(store, id);
      await admin.del(log(id));
      await refused(store, id);
    });

    it('a log key of the wrong type (WRONGTYPE) → CheckpointError', async () => {
      const id = `s-${unique()}`;
      await written(store, id);
      await admin.del(log(id));
      await admin.set(log(id), 'not a list');
      await refused(store, id);
    });

    it('a snapshot key of the wrong type → CheckpointError', async () => {
      const id = `s-${unique()}`;
      await written(store, id);
      await admin.del(snapshots(id));
      await admin.hset(snapshots(id), 'x', '1');
      await refused(store, id);
    });

    it('the first log entry popped (head-truncated) → CheckpointError', async () => {
      const id = `s-${unique()}`;
      await written(store, id);
      await admin.lpop(log(id));
      await refused(store, id);
    });

    it('a middle log entry overwritten with garbage → CheckpointError', async () => {
      const id = `s-${unique()}`;
      await written(store, id);
      await admin.lset(log(id), 1, 'garbage');
      await refused(store, id);
    });

    it('control: a genuine entry re-signed unchanged loads', async () => {
      const id = `s-${unique()}`;
      await written(store, id);
      const before = await desk(store).session(id).messages();
      const entry = (await admin.lindex(log(id), 3)) as string;
      const body = entry.slice(9);
      // A step record's body: `[3, step, …]` (format 3), `{"s": step, …}` or `{"step": step, …}`.
      const parsed = JSON.parse(body) as { step?: number; s?: number } | [number, number];
      const step = Array.isArray(parsed) ? parsed[1] : (parsed.s ?? parsed.step);
      const crc = crc32(`${id}\n${step}\n${body}`).toString(16).padStart(8, '0');
      expect(entry.slice(1, 9)).toBe(crc);
      await admin.lset(log(id), 3, `${entry[0]}${crc}${body}`);
      expect(await desk(store).session(id).messages()).toEqual(before);
    });

    it('a re-signed entry whose agent step inserts at the head of the thread → CheckpointError', async () => {
      const id = `s-${unique()}`;
      await written(store, id);
      const entry = (await admin.lindex(log(id), 3)) as string;
      const earlier = (await admin.lrange(log(id), 0, 2)).map(
        (e) => JSON.parse(e.slice(9)) as Record<string, unknown>,
      );
      const body = asPatchBody(
        JSON.parse(entry.slice(9)) as Record<string, unknown>,
        threadLengthAfter(earlier),
      ) as { step: number; p: [string, unknown[], unknown][] };
      const first = body.p[0] as [string, unknown[], unknown];
      expect(first[0]).toBe('a');
      first[1] = ['thread', 0];
      const text = JSON.stringify(body);
      const crc = crc32(`${id}\n${body.step}\n${text}`).toString(16).padStart(8, '0');
      await admin.lset(log(id), 3, `${entry[0]}${crc}${text}`);
      await refused(store, id);
    });
  },
);

describe.skipIf(!PG)('PostgresCheckpointStore: damaged rows (item 4)', () => {
  const table = `baton_i12_damage_${unique()}`;
  const store = new PostgresCheckpointStore({ connectionString: DATABASE_URL, table });
  const admin = new pg.Pool({ connectionString: DATABASE_URL });
  afterAll(async () => {
    await store.close();
    await admin.query(dropStatement(table));
    await admin.end();
  });
  const rows = `"${table}_checkpoints"`;

  it('control: the rows are where this suite expects them', async () => {
    const id = `s-${unique()}`;
    await written(store, id);
    const { rows: found } = await admin.query<{ step: number }>(
      `SELECT step FROM ${rows} WHERE session_id = $1 ORDER BY step`,
      [id],
    );
    expect(found.map((r) => r.step)).toEqual([1, 2, 3, 4]);
  });

  it('the first row (the snapshot) deleted → CheckpointError, not an empty session', async () => {
    const id = `s-${unique()}`;
    await written(store, id);
    await admin.query(`DELETE FROM ${rows} WHERE session_id = $1 AND step = 1`, [id]);
    await refused(store, id);
  });

  it('a middle row deleted (a gap in the steps) → CheckpointError', async () => {
    const id = `s-${unique()}`;
    await written(store, id);
    await admin.query(`DELETE FROM ${rows} WHERE session_id = $1 AND step = 2`, [id]);
    await refused(store, id);
  });

  it('a middle row overwritten with garbage → CheckpointError', async () => {
    const id = `s-${unique()}`;
    await written(store, id);
    await admin.query(`UPDATE ${rows} SET data = $2 WHERE session_id = $1 AND step = 2`, [
      id,
      Buffer.from('garbage \u0000\u00ff'),
    ]);
    await refused(store, id);
  });

  it('the final row overwritten with garbage → CheckpointError (a database has no torn appends)', async () => {
    const id = `s-${unique()}`;
    await written(store, id);
    await admin.query(`UPDATE ${rows} SET data = $2 WHERE session_id = $1 AND step = 4`, [
      id,
      Buffer.from('{"step":4,'),
    ]);
    await refused(store, id);
  });
});
