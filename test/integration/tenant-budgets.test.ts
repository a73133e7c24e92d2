// API.md §26: a tenant's daily cap lives in the store, shared by every process: spenders racing
// on two store objects (two processes' worth) never take more than the cap together, on the
// memory, file, PostgreSQL and Redis stores.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  type CheckpointStore,
  FileCheckpointStore,
  MemoryCheckpointStore,
  PostgresCheckpointStore,
  RedisCheckpointStore,
} from '../../src/index.js';
import { dropStatement } from '../../src/checkpoint/postgres-sql.js';
import { SpendCounters } from '../../src/checkpoint/spend-counters.js';
import { LIMIT_CALLS } from '../../src/engine/run/call-limit.js';
import { tenantDayLimits } from '../../src/workers/tenant-budget.js';
import { costDesk } from '../support/cost-desk.js';

const POSTGRES_URL =
  process.env.BATON_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BATON_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const REQUIRE_SERVICES = process.env.BATON_REQUIRE_SERVICES === '1';

interface Backend {
  readonly a: CheckpointStore;
  readonly b: CheckpointStore;
  close(): Promise<void>;
}

function unavailable(service: string, detail: string): undefined {
  if (REQUIRE_SERVICES) {
    throw new Error(`${service} is down (${detail}); BATON_REQUIRE_SERVICES=1 requires it.`);
  }
  return undefined;
}

const backends: Record<string, () => Promise<Backend | undefined>> = {
  memory: async () => {
    const store = new MemoryCheckpointStore();
    return { a: store, b: store, close: () => store.close() };
  },
  file: async () => {
    const directory = await mkdtemp(join(tmpdir(), 'baton-budgets-'));
    const a = new FileCheckpointStore(directory);
    const b = new FileCheckpointStore(directory);
    return {
      a,
      b,
      close: async () => {
        await Promise.all([a.close(), b.close()]);
        await rm(directory, { recursive: true, force: true });
      },
    };
  },
  postgres: async () => {
    const pg = (await import('pg')).default;
    const admin = new pg.Pool({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3_000 });
    try {
      await admin.query('SELECT 1');
    } catch (error) {
      await admin.end();
      return unavailable('PostgreSQL', `${POSTGRES_URL}: ${error}`);
    }
    const table = `baton_budgets_${randomBytes(5).toString('hex')}`;
    const a = new PostgresCheckpointStore({ connectionString: POSTGRES_URL, table });
    const b = new PostgresCheckpointStore({ connectionString: POSTGRES_URL, table });
    return {
      a,
      b,
      close: async () => {
        await Promise.all([a.close(), b.close()]);
        await admin.query(dropStatement(table));
        await admin.end();
      },
    };
  },
  redis: async () => {
    const { Redis } = await import('ioredis');
    const admin = new Redis(REDIS_URL, {
      lazyConnect: true,
      connectTimeout: 3_000,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    try {
      await admin.connect();
      await admin.ping();
    } catch (error) {
      admin.disconnect();
      return unavailable('Redis', `${REDIS_URL}: ${error}`);
    }
    const keyPrefix = `baton-budgets-${randomBytes(5).toString('hex')}:`;
    const a = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix });
    const b = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix });
    return {
      a,
      b,
      close: async () => {
        await Promise.all([a.close(), b.close()]);
        const found = await admin.keys(`${keyPrefix}*`);
        if (found.length > 0) await admin.del(...found);
        admin.disconnect();
      },
    };
  },
};

const DAY = Date.UTC(2026, 11, 1, 12);

describe.each(Object.keys(backends))('tenant budgets on the %s store', (name) => {
  it('lets racing spenders on two store objects add up to the cap, never past it', async (ctx) => {
    const backend = await backends[name]?.();
    if (backend === undefined) return ctx.skip();
    try {
      const a = new SpendCounters(backend.a);
      const b = new SpendCounters(backend.b);
      // 30 spenders of $1 each (in micro-dollars) against a $10 cap, half on each store object.
      const added = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          (i % 2 === 0 ? a : b).add('acme', 1_000_000, 10_000_000),
        ),
      );
      expect(added.filter(Boolean)).toHaveLength(10);
      expect(await b.total('acme')).toBe(10_000_000);
      // Giving back is never refused, and frees room for exactly that much.
      expect(await a.add('acme', -2_500_000)).toBe(true);
      expect(await b.add('acme', 2_000_000, 10_000_000)).toBe(true);
      expect(await a.add('acme', 1_000_000, 10_000_000)).toBe(false);
      expect(await a.total('acme')).toBe(9_500_000);
      expect(await a.total('other')).toBe(0);
    } finally {
      await backend.close();
    }
  });

  it('holds a tenant’s sessions in two processes to the day’s cap together', async (ctx) => {
    const backend = await backends[name]?.();
    if (backend === undefined) return ctx.skip();
    try {
      // Each call reserves and costs $0.10; the tenant may spend $0.55 today: five calls in all.
      const here = costDesk(backend.a, 100, 20);
      const there = costDesk(backend.b, 100, 20);
      const owner = async () => 'acme';
      const limitsHere = tenantDayLimits(backend.a, 0.55, owner, () => DAY);
      const limitsThere = tenantDayLimits(backend.b, 0.55, owner, () => DAY);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => {
          const id = `t-${i}`;
          const side = i % 2 === 0 ? here : there;
          const limits = i % 2 === 0 ? limitsHere : limitsThere;
          return side.workflow.session(id).run('hello', { [LIMIT_CALLS]: limits(id) } as object);
        }),
      );
      const calls = here.client.calls.length + there.client.calls.length;
      expect(calls).toBe(5);
      const paused = results.filter((r) => r.pendingRequest?.kind === 'budget');
      expect(paused).toHaveLength(7);
      expect(paused[0]?.pendingRequest?.prompt).toBe(
        'Daily budget of $0.55 for tenant "acme" reached',
      );
      expect(await new SpendCounters(backend.a).total('tenant-day:2026-12-01:acme')).toBe(500_000);
      // Tomorrow is a new day for the same tenant.
      const tomorrow = tenantDayLimits(backend.a, 0.55, owner, () => DAY + 86_400_000);
      const next = await here.workflow.session('t-next').run('hi', {
        [LIMIT_CALLS]: tomorrow('t-next'),
      } as object);
      expect(next.status).toBe('awaiting_input');
      expect(next.pendingRequest?.kind).toBe('input');
    } finally {
      await backend.close();
    }
  });
});
