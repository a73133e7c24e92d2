// A store is shared by what it says of itself (`store.shared`), never by its class name: a
// subclass of PostgresCheckpointStore (an application's audited store) and a class whose name a
// minifier changed both run with serve({ dispatcher }) and startWorker().
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

import {
  type CheckpointStore,
  MemoryCheckpointStore,
  PgBossDispatcher,
  PostgresCheckpointStore,
  RedisCheckpointStore,
  serve,
  startWorker,
  type TaskResult,
} from '../../src/index.js';
import {
  answer,
  authenticate,
  Backend,
  closeAll,
  DATABASE_URL,
  desk,
  request,
  server,
  track,
  unique,
  worker,
} from '../independent/workers/support.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const backend = new Backend('pg-boss');
afterEach(async () => {
  await closeAll();
});
afterAll(async () => {
  await backend.drop();
});

class Audited extends PostgresCheckpointStore {
  readonly appended: string[] = [];
  override async append(...args: Parameters<PostgresCheckpointStore['append']>) {
    this.appended.push(args[0]);
    return super.append(...args);
  }
}

describe('a store shared by every machine', () => {
  it('is one whose `shared` is true: the Postgres and Redis stores, and what declares it', () => {
    expect(new PostgresCheckpointStore({ connectionString: DATABASE_URL }).shared).toBe(true);
    expect(new RedisCheckpointStore({ url: 'redis://127.0.0.1:6379' }).shared).toBe(true);
    const local: CheckpointStore = new MemoryCheckpointStore();
    expect(local.shared).toBeUndefined();
  });

  it('a subclass of PostgresCheckpointStore runs with serve({ dispatcher }) and startWorker()', async () => {
    const name = `audited-${unique()}`;
    const audited = (): Audited =>
      track(new Audited({ connectionString: DATABASE_URL, table: backend.table }), (s) =>
        s.close(),
      );
    const front = desk({ store: audited(), label: 'server', name });
    const handler = server(front.workflow, { authenticate, dispatcher: backend.dispatcher() });
    const workerStore = audited();
    // A minifier renames classes: the name says nothing.
    Object.defineProperty(Audited, 'name', { value: 'a' });
    const back = desk({ store: workerStore, label: 'w', name });
    await worker(back.workflow, { dispatcher: backend.dispatcher() });
    expect((await answer(handler.fetch(request('POST', '/sessions', { id: 's1' })))).status).toBe(
      201,
    );
    const posted = await answer(
      handler.fetch(request('POST', '/sessions/s1/runs', { input: 'hi' })),
    );
    expect(posted.status).toBe(200);
    expect((posted.json as TaskResult).messages.at(-2)).toMatchObject({ content: 'w: hi' });
    expect(workerStore.appended).toEqual(['s1', 's1', 's1']);
    expect(back.counts).toEqual({ triage: 1, billing: 1 });
  });

  it('a store that does not say it is shared is refused, whatever its class is called', async () => {
    const local: CheckpointStore =
      new (class PostgresCheckpointStore extends MemoryCheckpointStore {})();
    const { workflow } = desk({ store: local, label: 'x', name: `local-${unique()}` });
    const dispatcher = new PgBossDispatcher({ connectionString: DATABASE_URL });
    expect(() => serve(workflow, { authenticate, dispatcher })).toThrow(
      'it has a PostgresCheckpointStore, which only this process sees.',
    );
    await expect(startWorker(workflow, { dispatcher })).rejects.toThrow(
      'it has a PostgresCheckpointStore, which only this process sees.',
    );
    await dispatcher.close();
  });
});
