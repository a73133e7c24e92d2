import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  approve,
  type CheckpointStore,
  ConfigError,
  FileCheckpointStore,
  MemoryCheckpointStore,
  PostgresCheckpointStore,
  RedisCheckpointStore,
  scriptedText,
} from '../../src/index.js';
import { billingDesk, calls, lines } from '../scenarios/approvals-helpers.js';
import { dropStatement } from '../../src/checkpoint/postgres-sql.js';

/**
 * API.md §10 with every checkpoint store: a session paused for approval in one workflow object is
 * approved through another (as another process would), and the tool runs exactly once.
 */

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
    const directory = await mkdtemp(join(tmpdir(), 'baton-approval-'));
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
    const table = `baton_approval_${randomBytes(5).toString('hex')}`;
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
    const keyPrefix = `baton-approval-${randomBytes(5).toString('hex')}:`;
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

describe.each(Object.keys(backends))('approvals with the %s store', (name) => {
  it('approves from a second workflow object; the tool runs exactly once', async (ctx) => {
    const backend = await backends[name]?.();
    if (backend === undefined) return ctx.skip();
    try {
      const step = calls(
        ['c1', 'lookup', { invoiceId: '42' }],
        ['c2', 'refund', { invoiceId: '42' }],
      );
      const first = billingDesk([step], { store: backend.a });
      const paused = await first.workflow.session('s').run('Refund invoice 42');
      expect(paused.pendingRequest?.calls?.map((c) => c.id)).toEqual(['c2']);

      const second = billingDesk([scriptedText('Refunded.')], { store: backend.b });
      const session = second.workflow.session('s');
      expect(await session.info()).toEqual({
        status: 'awaiting_input',
        pendingRequest: paused.pendingRequest,
        step: 2,
      });
      const done = await session.run(approve('c2'));
      expect(lines(done.messages)).toEqual([
        'ToolApprovalResponseEvent(user): Approved call c2',
        'ToolCallExecutionEvent(billing): refund: Refunded 42.',
        'TextMessage(billing): Refunded.',
        'UserInputRequestedEvent(billing): Refunded.',
      ]);
      expect([...first.runs, ...second.runs]).toEqual(['lookup:42@c1', 'refund:42@c2']);

      // The first object catches up: approving again is refused, nothing runs twice.
      await expect(first.workflow.session('s').run(approve('c2'))).rejects.toThrow(ConfigError);
      const thread = await first.workflow.session('s').messages();
      expect(thread.filter((m) => m.type === 'ToolCallExecutionEvent').length).toBe(2);
      expect([...first.runs, ...second.runs]).toEqual(['lookup:42@c1', 'refund:42@c2']);
    } finally {
      await backend.close();
    }
  });
});
