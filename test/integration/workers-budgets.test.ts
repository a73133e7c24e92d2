// API.md §26 with §16: a tenant's daily cap holds across workers. Two workers share the store
// and the queue; a tenant's sessions, run at once, make only the calls the cap allows together.
import { randomBytes } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type CheckpointStore, type Dispatcher, serve, startWorker } from '../../src/index.js';
import { costDesk } from '../support/cost-desk.js';
import { dispatcherOf, type Engine, storeOf } from '../support/queue-desk.js';

const TOKEN = 'budget-token';

function call(handler: { fetch(r: Request): Promise<Response> }, path: string, body?: unknown) {
  return handler.fetch(
    new Request(`http://baton.test${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
}

describe.each<Engine>(['pg', 'redis'])('a tenant budget across workers on %s', (engine) => {
  const name = `b${randomBytes(4).toString('hex')}`;
  const queue = `baton.test-${name}`;
  const closers: (() => Promise<void>)[] = [];
  const clients: { calls: readonly unknown[] }[] = [];
  let store: CheckpointStore;
  let dispatcher: Dispatcher;

  beforeAll(async () => {
    store = storeOf(engine, name);
    dispatcher = dispatcherOf(engine, queue);
    for (let i = 0; i < 2; i++) {
      const workerStore = storeOf(engine, name);
      const workerDispatcher = dispatcherOf(engine, queue);
      // Each call reserves and costs $0.10; the tenant may spend $0.35 a day: three calls.
      const desk = costDesk(workerStore, 100, 20);
      clients.push(desk.client);
      const worker = await startWorker(desk.workflow, {
        dispatcher: workerDispatcher,
        concurrency: 4,
        budgets: { perTenantPerDayUsd: 0.35 },
      });
      closers.push(async () => {
        await worker.close();
        await workerDispatcher.close();
        await workerStore.close();
      });
    }
  }, 60_000);

  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await dispatcher.close();
    await store.close();
  }, 60_000);

  it('lets the sessions of one tenant make only the calls its cap allows, together', async () => {
    const handler = serve(costDesk(store, 100, 0).workflow, {
      token: TOKEN,
      dispatcher,
      budgets: { perTenantPerDayUsd: 0.35 },
    });
    const ids = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const created = await call(handler, '/sessions', {});
        return ((await created.json()) as { id: string }).id;
      }),
    );
    const answers = await Promise.all(
      ids.map(async (id) => {
        const answered = await call(handler, `/sessions/${id}/runs`, { input: 'hello' });
        return (await answered.json()) as { pendingRequest?: { kind: string; prompt: string } };
      }),
    );
    const calls = clients.reduce((sum, c) => sum + c.calls.length, 0);
    expect(calls).toBe(3);
    const kinds = answers.map((a) => a.pendingRequest?.kind).sort();
    expect(kinds).toEqual([
      'budget',
      'budget',
      'budget',
      'budget',
      'budget',
      'input',
      'input',
      'input',
    ]);
    expect(answers.find((a) => a.pendingRequest?.kind === 'budget')?.pendingRequest?.prompt).toBe(
      'Daily budget of $0.35 for tenant "default" reached',
    );
    await handler.close();
  }, 60_000);
});
