// Independent suite for API.md §16: `new PgBossDispatcher({ boss })` and
// `new BullMQDispatcher({ connection })` with the application's own client, and
// `dispatcher.close()`, which "closes the connections it opened" — so not the application's.
// Written from API.md alone. Readings where the page is open:
// - the application's PgBoss is started by the application (and stopped by it);
// - BullMQ's `connection` may be the application's ioredis client (BullMQ's own convention, with
//   `maxRetriesPerRequest: null`).
import { Redis } from 'ioredis';
import { PgBoss } from 'pg-boss';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

import { BullMQDispatcher, PgBossDispatcher, type TaskResult } from '../../../src/index.js';
import {
  answer,
  authenticate,
  Backend,
  closeAll,
  DATABASE_URL,
  desk,
  REDIS,
  request,
  server,
  unique,
  worker,
} from './support.js';

// Queues and workers take seconds on real servers: generous waits, no timed assertion.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const backends: Backend[] = [];
afterEach(async () => {
  await closeAll();
});
afterAll(async () => {
  for (const b of backends) await b.drop();
});

describe("the application's own clients (API.md §16)", () => {
  it('PgBossDispatcher({ boss }): runs go through it; close() leaves the PgBoss running', async () => {
    const b = new Backend('pg-boss');
    backends.push(b);
    const boss = new PgBoss(DATABASE_URL);
    boss.on('error', () => undefined);
    await boss.start();
    try {
      const name = `wk-${unique()}`;
      const serverSide = new PgBossDispatcher({ boss }, { queue: b.queue });
      const workerSide = new PgBossDispatcher({ boss }, { queue: b.queue });
      const front = desk({ store: b.store(), label: 'server', name });
      const handler = serve(front, serverSide);
      const one = desk({ store: b.store(), label: 'w1', name });
      const started = await worker(one.workflow, { dispatcher: workerSide });
      expect(
        (await answer(handler.fetch(request('POST', '/sessions', { id: 'own' })))).status,
      ).toBe(201);
      const posted = await answer(
        handler.fetch(request('POST', '/sessions/own/runs', { input: 'hi' })),
      );
      expect(posted.status).toBe(200);
      expect((posted.json as TaskResult).status).toBe('awaiting_input');
      expect(one.counts).toEqual({ triage: 1, billing: 1 });

      await started.close();
      await handler.close();
      await serverSide.close();
      await workerSide.close();
      // The application's PgBoss still works.
      const queue = `baton-wk-own-${unique()}`;
      await boss.createQueue(queue);
      expect(typeof (await boss.send(queue, { n: 1 }))).toBe('string');
      await boss.deleteQueue(queue);
    } finally {
      await boss.stop({ graceful: false });
    }
  });

  it('BullMQDispatcher({ connection: <ioredis client> }): close() leaves the client connected', async () => {
    const b = new Backend('bullmq');
    backends.push(b);
    const connection = new Redis({ ...REDIS, maxRetriesPerRequest: null });
    // The repository's ioredis and BullMQ's own copy are distinct types of one class.
    const own = connection as unknown as BullMQConnection;
    try {
      const name = `wk-${unique()}`;
      const serverSide = new BullMQDispatcher({ connection: own }, { queue: b.queue });
      const workerSide = new BullMQDispatcher({ connection: own }, { queue: b.queue });
      const front = desk({ store: b.store(), label: 'server', name });
      const handler = serve(front, serverSide);
      const one = desk({ store: b.store(), label: 'w1', name });
      const started = await worker(one.workflow, { dispatcher: workerSide });
      expect(
        (await answer(handler.fetch(request('POST', '/sessions', { id: 'own' })))).status,
      ).toBe(201);
      const posted = await answer(
        handler.fetch(request('POST', '/sessions/own/runs', { input: 'hi' })),
      );
      expect(posted.status).toBe(200);
      expect((posted.json as TaskResult).status).toBe('awaiting_input');
      expect(one.counts).toEqual({ triage: 1, billing: 1 });

      await started.close();
      await handler.close();
      await serverSide.close();
      await workerSide.close();
      expect(connection.status).toBe('ready');
      expect(await connection.ping()).toBe('PONG');
    } finally {
      await connection.quit();
    }
  });
});

type BullMQConnection = ConstructorParameters<typeof BullMQDispatcher>[0]['connection'];

function serve(made: ReturnType<typeof desk>, dispatcher: PgBossDispatcher | BullMQDispatcher) {
  return server(made.workflow, { authenticate, dispatcher });
}
