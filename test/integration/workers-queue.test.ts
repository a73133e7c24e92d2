// API.md §16 in one process: serve({dispatcher}) queues runs, startWorker() makes them, on
// pg-boss (PostgreSQL) and BullMQ (Redis): inputs of one session in the order sent, busy
// "reject" and "interrupt", and the ConfigError for a store machines do not share.
import { randomBytes } from 'node:crypto';

import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import {
  BullMQDispatcher,
  ConfigError,
  FileCheckpointStore,
  MemoryCheckpointStore,
  type CheckpointStore,
  type Dispatcher,
  PgBossDispatcher,
  serve,
  startWorker,
} from '../../src/index.js';
import { dispatcherOf, type Engine, queueDesk, REDIS_URL, storeOf } from '../support/queue-desk.js';

const TOKEN = 'workers-token';

function call(handler: { fetch(r: Request): Promise<Response> }, path: string, body?: unknown) {
  return handler.fetch(
    new Request(`http://baton.test${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
}

describe.each<Engine>((process.env.WORKERS_ENGINES ?? 'pg,redis').split(',') as Engine[])(
  'workers on %s',
  (engine) => {
    const name = `w${randomBytes(4).toString('hex')}`;
    const queue = `baton.test-${name}`;
    let store: CheckpointStore;
    let dispatcher: Dispatcher;
    let workerDispatcher: Dispatcher;
    let worker: { close(): Promise<void> };
    const closers: (() => Promise<void>)[] = [];

    beforeAll(async () => {
      store = storeOf(engine, name);
      dispatcher = dispatcherOf(engine, queue);
      workerDispatcher = dispatcherOf(engine, queue);
      const workerStore = storeOf(engine, name);
      worker = await startWorker(queueDesk(workerStore), { dispatcher: workerDispatcher });
      closers.push(async () => {
        await worker.close();
        await workerDispatcher.close();
        await workerStore.close();
      });
    }, 60_000);

    afterAll(async () => {
      for (const close of closers.reverse()) await close();
      await dispatcher.close();
      await store.close();
    }, 60_000);

    async function session(handler: { fetch(r: Request): Promise<Response> }): Promise<string> {
      const created = await call(handler, '/sessions', {});
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      return id;
    }

    it('answers ten inputs sent to one session at once in the order sent', async () => {
      const handler = serve(queueDesk(store), { token: TOKEN, dispatcher });
      const id = await session(handler);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, k) =>
          call(handler, `/sessions/${id}/runs`, { input: `q${k}` }),
        ),
      );
      const answered = await Promise.all(
        answers.map(async (a) => {
          expect(a.status).toBe(200);
          const result = (await a.json()) as {
            status: string;
            messages: { type: string; content: string }[];
          };
          expect(result.status).toBe('awaiting_input');
          return texts(result.messages);
        }),
      );
      expect(answered).toEqual(
        Array.from({ length: 10 }, (_, k) => [`q${k}`, `reply ${k + 1}: q${k}`]),
      );
      const thread = (await (await call(handler, `/sessions/${id}/messages`)).json()) as {
        messages: { type: string; content: string }[];
      };
      expect(thread.messages.filter((m) => m.type === 'TextMessage').map((m) => m.content)).toEqual(
        Array.from({ length: 10 }, (_, k) => [`q${k}`, `reply ${k + 1}: q${k}`]).flat(),
      );
      await handler.close();
    }, 90_000);

    it('answers inputs sent at once to one session through /chat and /ag-ui in the order sent', async () => {
      const handler = serve(queueDesk(store), { token: TOKEN, dispatcher });
      // The session is created by the first of them (the protocol routes create on first use).
      const chatId = `chat-${randomBytes(4).toString('hex')}`;
      const chats = await Promise.all(
        Array.from({ length: 6 }, (_, k) =>
          call(handler, '/chat', {
            id: chatId,
            messages: [{ id: `m${k}`, role: 'user', parts: [{ type: 'text', text: `c${k}` }] }],
          }),
        ),
      );
      for (const answer of chats) {
        expect(answer.status).toBe(200);
        expect(await answer.text()).toContain('data: [DONE]');
      }
      const chatThread = (await (await call(handler, `/sessions/${chatId}/messages`)).json()) as {
        messages: { type: string; content: string }[];
      };
      expect(texts(chatThread.messages)).toEqual(
        Array.from({ length: 6 }, (_, k) => [`c${k}`, `reply ${k + 1}: c${k}`]).flat(),
      );
      const threadId = `agui-${randomBytes(4).toString('hex')}`;
      const runs = await Promise.all(
        Array.from({ length: 6 }, (_, k) =>
          call(handler, '/ag-ui', {
            threadId,
            runId: `r${k}`,
            messages: [{ id: `m${k}`, role: 'user', content: `a${k}` }],
          }),
        ),
      );
      for (const answer of runs) {
        expect(answer.status).toBe(200);
        expect(await answer.text()).toContain('"RUN_FINISHED"');
      }
      const aguiThread = (await (await call(handler, `/sessions/${threadId}/messages`)).json()) as {
        messages: { type: string; content: string }[];
      };
      expect(texts(aguiThread.messages)).toEqual(
        Array.from({ length: 6 }, (_, k) => [`a${k}`, `reply ${k + 1}: a${k}`]).flat(),
      );
      await handler.close();
    }, 90_000);

    it('answers 409 to an input while the session runs with busy "reject"', async () => {
      const handler = serve(queueDesk(store), { token: TOKEN, dispatcher, busy: 'reject' });
      const id = await session(handler);
      const first = call(handler, `/sessions/${id}/runs`, { input: 'slow one' });
      await waitFor(async () => (await store.leaseHolder(id)) !== null);
      const second = await call(handler, `/sessions/${id}/runs`, { input: 'two' });
      expect(second.status).toBe(409);
      expect(second.headers.get('retry-after')).not.toBeNull();
      const result = (await (await first).json()) as { messages: { content: string }[] };
      expect(result.messages.at(-1)?.content).toBe('reply 1: slow one');
      await handler.close();
    }, 60_000);

    it('stops the running run and runs the new input next with busy "interrupt"', async () => {
      const handler = serve(queueDesk(store), { token: TOKEN, dispatcher, busy: 'interrupt' });
      const id = await session(handler);
      const first = call(handler, `/sessions/${id}/runs`, { input: 'slow one' });
      await waitFor(async () => (await store.leaseHolder(id)) !== null);
      const second = call(handler, `/sessions/${id}/runs`, { input: 'two' });
      const stopped = (await (await first).json()) as { status: string; stopReason: string | null };
      expect({ status: stopped.status, stopReason: stopped.stopReason }).toEqual({
        status: 'terminated',
        stopReason: 'External termination requested',
      });
      const next = (await (await second).json()) as {
        status: string;
        messages: { type: string; content: string }[];
      };
      expect(next.status).toBe('awaiting_input');
      expect(texts(next.messages)).toEqual(['two', 'reply 2: two']);
      await handler.close();
    }, 60_000);

    it('cuts short a turn still running when close() gives up, releases its lease, and another worker finishes it', async () => {
      const own = `${queue}-close`;
      const serverDispatcher = dispatcherOf(engine, own);
      const handler = serve(queueDesk(store), { token: TOKEN, dispatcher: serverDispatcher });
      const id = await session(handler);
      const firstStore = storeOf(engine, name);
      const firstDispatcher = dispatcherOf(engine, own);
      const first = await startWorker(queueDesk(firstStore), {
        dispatcher: firstDispatcher,
        shutdownTimeoutMs: 0,
      });
      // The clerk calls its wait tool (SLOW_MS) for a text holding "slow".
      const answer = call(handler, `/sessions/${id}/runs`, { input: 'slow one' });
      await waitFor(async () => (await store.leaseHolder(id)) !== null);
      await first.close();
      // close() let go of the session: no lease left to expire before another worker may take it.
      expect(await store.leaseHolder(id)).toBe(null);
      await firstDispatcher.close();
      await firstStore.close();
      const secondStore = storeOf(engine, name);
      const secondDispatcher = dispatcherOf(engine, own);
      const second = await startWorker(queueDesk(secondStore), { dispatcher: secondDispatcher });
      const result = (await (await answer).json()) as {
        status: string;
        messages: { type: string; content: string }[];
      };
      expect(result.status).toBe('awaiting_input');
      const thread = (await (await call(handler, `/sessions/${id}/messages`)).json()) as {
        messages: { type: string; content: string }[];
      };
      expect(texts(thread.messages)).toEqual(['slow one', 'reply 1: slow one']);
      await handler.close();
      await second.close();
      await secondDispatcher.close();
      await secondStore.close();
      await serverDispatcher.close();
    }, 90_000);

    it('refuses a store that only this process sees, with a ConfigError naming why', async () => {
      const memory = queueDesk(new MemoryCheckpointStore());
      expect(() => serve(memory, { token: TOKEN, dispatcher })).toThrow(ConfigError);
      expect(() => serve(memory, { token: TOKEN, dispatcher })).toThrow(
        'serve(): a dispatcher hands each run to any worker, so the workflow needs a checkpoint ' +
          'store that every machine shares (PostgresCheckpointStore or RedisCheckpointStore); it ' +
          'has a MemoryCheckpointStore, which only this process sees.',
      );
      const file = queueDesk(new FileCheckpointStore(`/tmp/${name}`));
      await expect(startWorker(file, { dispatcher })).rejects.toThrow(
        'startWorker(): a dispatcher hands each run to any worker, so the workflow needs a ' +
          'checkpoint store that every machine shares (PostgresCheckpointStore or ' +
          'RedisCheckpointStore); it has a FileCheckpointStore, which only this process sees.',
      );
      const perPrincipal = serve(() => memory, { token: TOKEN, dispatcher });
      const answer = await call(perPrincipal, '/sessions', {});
      expect(answer.status).toBe(500);
      expect(((await answer.json()) as { error: { message: string } }).error.message).toContain(
        'it has a MemoryCheckpointStore, which only this process sees.',
      );
    });
  },
);

function texts(messages: readonly { type: string; content: string }[]): string[] {
  return messages.filter((m) => m.type === 'TextMessage').map((m) => m.content);
}

async function waitFor(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('PgBossDispatcher({ boss })', () => {
  it('queues on a PgBoss the caller started (servers then look at the store without announcements)', async () => {
    const { PgBoss } = await import('pg-boss');
    const boss = new PgBoss({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
    boss.on('error', () => {});
    await boss.start();
    const name = `wb${randomBytes(4).toString('hex')}`;
    const store = storeOf('pg', name);
    const dispatcher = new PgBossDispatcher({ boss }, { queue: `baton.${name}` });
    const worker = await startWorker(queueDesk(store), { dispatcher });
    const handler = serve(queueDesk(store), { token: TOKEN, dispatcher });
    try {
      const { id } = (await (await call(handler, '/sessions', {})).json()) as { id: string };
      const answer = await call(handler, `/sessions/${id}/runs`, { input: 'hello' });
      const result = (await answer.json()) as { messages: { type: string; content: string }[] };
      expect(texts(result.messages)).toEqual(['hello', 'reply 1: hello']);
    } finally {
      await handler.close();
      await worker.close();
      await dispatcher.close();
      await boss.stop({ graceful: false, close: true });
      await store.close();
    }
  }, 60_000);
});

describe('BullMQDispatcher', () => {
  it("runs a session's later inputs when a server died after numbering an input and before adding its job", async () => {
    const { hostname, port } = new URL(REDIS_URL);
    const queue = `baton.test-gap-${randomBytes(4).toString('hex')}`;
    const connection = { host: hostname, port: Number(port) };
    const server = new BullMQDispatcher({ connection }, { queue });
    const worker = new BullMQDispatcher({ connection }, { queue });
    // The first input's job is never added: the server "dies" right after numbering it.
    const add = vi.spyOn(Queue.prototype, 'add').mockRejectedValueOnce(new Error('server died'));
    try {
      await expect(
        server.enqueue(queue, { sessionId: 's:1', task: 'first', inputId: 'i1' }),
      ).rejects.toThrow('server died');
    } finally {
      add.mockRestore();
    }
    await server.enqueue(queue, { sessionId: 's:1', task: 'second', inputId: 'i2' });
    const ran: unknown[] = [];
    let ranBoth: () => void = () => {};
    const both = new Promise<void>((resolve) => (ranBoth = resolve));
    const consumer = await worker.consume(
      queue,
      async (job) => {
        ran.push(job.task);
        if (ran.length === 2) ranBoth();
        return { done: true };
      },
      { concurrency: 2 },
    );
    await both;
    // The numbered input is not lost: it runs in its place, before the one after it.
    expect(ran).toEqual(['first', 'second']);
    await consumer.stop();
    await worker.close();
    await server.close();
  }, 60_000);
});
