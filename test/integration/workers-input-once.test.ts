// API.md §16 "nothing committed is lost or repeated": a worker looks in the log for its job's
// input before it takes the session's lease. When another attempt of the same job (the queue
// handed it on while this worker stalled) takes the input in between, this worker must not take
// it a second time once it holds the lease: it finds the input there and goes on from the log.
import { randomBytes } from 'node:crypto';

import { afterAll, describe, expect, it } from 'vitest';

import {
  type CheckpointStore,
  type Dispatcher,
  serve,
  startWorker,
  textMessage,
} from '../../src/index.js';
import { dispatcherOf, type Engine, queueDesk, storeOf } from '../support/queue-desk.js';

const TOKEN = 'workers-token';

function call(handler: { fetch(r: Request): Promise<Response> }, path: string, body: unknown) {
  return handler.fetch(
    new Request(`http://baton.test${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

/** Who races whom: `meanwhile` runs once, before the first lease asked for session `id`. */
interface Race {
  id?: string;
  meanwhile?: (() => Promise<void>) | undefined;
}

/**
 * `store`, where the first lease asked for session `id` (the worker's, after its look for the
 * input) is asked only after `meanwhile` has run: another attempt of the job took the input
 * between the look and the lease.
 */
function racedStore(store: CheckpointStore, race: Race): CheckpointStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key !== 'acquireLease') {
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === 'function' && key !== 'constructor'
          ? (value as () => unknown).bind(target)
          : value;
      }
      return async (...args: Parameters<CheckpointStore['acquireLease']>) => {
        const meanwhile = race.meanwhile;
        if (args[0] === race.id && meanwhile !== undefined) {
          race.meanwhile = undefined;
          await meanwhile();
        }
        return target.acquireLease(...args);
      };
    },
  });
}

describe.each<Engine>((process.env.WORKERS_ENGINES ?? 'pg,redis').split(',') as Engine[])(
  'a job taken twice on %s',
  (engine) => {
    const closers: (() => Promise<void>)[] = [];
    afterAll(async () => {
      for (const close of closers.reverse()) await close();
    }, 60_000);

    it('takes its input once when another attempt took it between the look and the lease', async () => {
      const name = `wi${randomBytes(4).toString('hex')}`;
      const queue = `baton.test-${name}`;
      const store = storeOf(engine, name);
      const otherStore = storeOf(engine, name);
      const workerStore = storeOf(engine, name);
      const dispatcher: Dispatcher = dispatcherOf(engine, queue);
      const workerDispatcher: Dispatcher = dispatcherOf(engine, queue);
      const race: Race = {};
      const worker = await startWorker(queueDesk(racedStore(workerStore, race), name), {
        dispatcher: workerDispatcher,
      });
      closers.push(async () => {
        await worker.close();
        await Promise.all([workerDispatcher.close(), dispatcher.close()]);
        await Promise.all([store.close(), otherStore.close(), workerStore.close()]);
      });
      const handler = serve(queueDesk(store, name), { token: TOKEN, dispatcher });
      const created = await call(handler, '/sessions', {});
      const { id } = (await created.json()) as { id: string };
      const input = textMessage({ source: 'user', content: 'hello' });
      race.id = id;
      // The other attempt: another worker's run of the same input on the same session.
      race.meanwhile = async () => {
        await queueDesk(otherStore, name).session(id).run(input);
      };

      const answer = await call(handler, `/sessions/${id}/runs`, { input });
      expect(answer.status).toBe(200);
      expect(race.meanwhile).toBeUndefined(); // the race was run

      const thread = await queueDesk(store, name).session(id).messages();
      expect(thread.map((m) => [m.source, m.type, 'content' in m ? m.content : null])).toEqual([
        ['user', 'TextMessage', 'hello'],
        ['clerk', 'TextMessage', 'reply 1: hello'],
        ['clerk', 'UserInputRequestedEvent', 'reply 1: hello'],
      ]);
      expect(thread[0]?.id).toBe(input.id);
    }, 60_000);
  },
);
