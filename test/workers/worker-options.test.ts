// The options of §16's constructors and of startWorker(): a wrong one is a ConfigError naming it.
import { describe, expect, it } from 'vitest';

import {
  BullMQDispatcher,
  ConfigError,
  MemoryCheckpointStore,
  PgBossDispatcher,
  startWorker,
} from '../../src/index.js';
import { dispatcherOfUrl } from '../../src/cli/worker-command.js';
import { queueDesk } from '../support/queue-desk.js';

function thrown(make: () => unknown): { name: string; path: unknown; message: string } {
  try {
    make();
  } catch (error) {
    if (error instanceof ConfigError)
      return { name: error.name, path: error.path, message: error.message };
    throw error;
  }
  throw new Error('nothing thrown');
}

describe('§16 options', () => {
  it('PgBossDispatcher needs a connection string or a boss, and a plain queue name', () => {
    expect(thrown(() => new PgBossDispatcher({} as never))).toEqual({
      name: 'ConfigError',
      path: 'connectionString',
      message:
        'PgBossDispatcher: give { connectionString: "postgres://…" } or { boss } (a started PgBoss).',
    });
    expect(
      thrown(() => new PgBossDispatcher({ connectionString: 'postgres://x' }, { queue: 'a b' })),
    ).toEqual({
      name: 'ConfigError',
      path: 'queue',
      message: 'PgBossDispatcher: `queue` must be letters, digits, ".", "-" or "_", got "a b".',
    });
    expect(
      thrown(
        () => new PgBossDispatcher({ connectionString: 'postgres://x' }, { heartbeatSeconds: 5 }),
      ),
    ).toEqual({
      name: 'ConfigError',
      path: 'heartbeatSeconds',
      message: 'PgBossDispatcher: `heartbeatSeconds` must be an integer of at least 10, got 5.',
    });
    expect(
      thrown(
        () => new PgBossDispatcher({ connectionString: 'postgres://x' }, { handOverSeconds: 1 }),
      ),
    ).toEqual({
      name: 'ConfigError',
      path: 'handOverSeconds',
      message: 'PgBossDispatcher: `handOverSeconds` must be an integer of at least 2, got 1.',
    });
    expect(
      thrown(
        () => new PgBossDispatcher({ connectionString: 'postgres://x' }, { handOverSeconds: 2.5 }),
      ),
    ).toEqual({
      name: 'ConfigError',
      path: 'handOverSeconds',
      message: 'PgBossDispatcher: `handOverSeconds` must be an integer of at least 2, got 2.5.',
    });
    expect(
      thrown(() => new PgBossDispatcher({ connectionString: 'postgres://x' }, { max: 0 })),
    ).toEqual({
      name: 'ConfigError',
      path: 'max',
      message: 'PgBossDispatcher: `max` must be an integer of at least 1, got 0.',
    });
  });

  it('BullMQDispatcher needs connection options', () => {
    expect(thrown(() => new BullMQDispatcher({} as never))).toEqual({
      name: 'ConfigError',
      path: 'connection',
      message:
        'BullMQDispatcher: give { connection: { host, port } } (ioredis options for the Redis server).',
    });
    expect(thrown(() => new BullMQDispatcher({ connection: {} }, { lockDurationMs: 0 }))).toEqual({
      name: 'ConfigError',
      path: 'lockDurationMs',
      message:
        'BullMQDispatcher: `lockDurationMs` must be a positive integer (milliseconds), got 0.',
    });
  });

  it('startWorker() refuses a missing dispatcher and a bad concurrency', async () => {
    const workflow = queueDesk(new MemoryCheckpointStore());
    await expect(startWorker(workflow, {} as never)).rejects.toThrow(
      'startWorker(): `dispatcher` must be a PgBossDispatcher or a BullMQDispatcher.',
    );
    const dispatcher = new BullMQDispatcher({ connection: {} });
    await expect(startWorker(workflow, { dispatcher })).rejects.toThrow(
      'it has a MemoryCheckpointStore, which only this process sees.',
    );
  });

  it('baton worker --queue picks the engine from the address', () => {
    expect(dispatcherOfUrl('postgres://u@h/db').engine).toBe('pg-boss');
    expect(dispatcherOfUrl('redis://h:6380/2').engine).toBe('bullmq');
    expect(() => dispatcherOfUrl('mysql://h')).toThrow(
      'baton worker: --queue needs a postgres:// or redis:// address, got "mysql://…".',
    );
  });
});
