// API.md §16 across real processes: a client streaming from one server sees the run a worker in
// another process makes (steps announced by LISTEN/NOTIFY or Redis pub/sub), and `baton worker`
// on SIGTERM lets the running turn finish and exits.
import { randomBytes } from 'node:crypto';

import { afterAll, describe, expect, it } from 'vitest';

import { serve } from '../../src/index.js';
import { dispatcherOf, type Engine, queueDesk, storeOf } from '../support/queue-desk.js';
import { type Child, startChild, stopChild } from '../support/queue-processes.js';

const TOKEN = 'workers-token';
const HEADERS = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const ENGINES = (process.env.WORKERS_ENGINES ?? 'pg,redis').split(',') as Engine[];
const QUEUE_URL = {
  pg: 'postgres://postgres@127.0.0.1:5432/test',
  redis: 'redis://127.0.0.1:6379',
};

describe.each(ENGINES)('workers in other processes on %s', (engine) => {
  const children: Child[] = [];
  afterAll(async () => {
    await Promise.all(children.map((c) => stopChild(c)));
  }, 60_000);

  function names() {
    const suffix = randomBytes(4).toString('hex');
    return { store: `wp${suffix}`, workflow: `desk-${suffix}` };
  }

  it('streams from one server the run a worker in another process makes', async () => {
    const { store: storeName, workflow } = names();
    const env = { QD_ENGINE: engine, QD_STORE: storeName, QD_NAME: workflow };
    const worker = startChild(
      'src/cli/main.ts',
      ['worker', 'test/support/queue-desk-module.ts', '--queue', QUEUE_URL[engine]],
      /(Baton worker): /,
      env,
    );
    const server = startChild(
      'test/support/queue-serve.ts',
      [engine, storeName, workflow],
      /serving (\S+)/,
    );
    children.push(worker, server);
    const [, url] = await Promise.all([worker.printed, server.printed]);

    // Server A: this process, sharing the store and the queue.
    const store = storeOf(engine, storeName);
    const dispatcher = dispatcherOf(engine, `baton.${workflow}`);
    const a = serve(queueDesk(store, workflow), { token: TOKEN, dispatcher });
    try {
      const created = await fetch(`${url}/sessions`, {
        method: 'POST',
        headers: HEADERS,
        body: '{}',
      });
      const { id } = (await created.json()) as { id: string };
      const run = fetch(`${url}/sessions/${id}/runs`, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({ input: 'slow one' }),
      });
      await waitFor(async () => (await store.leaseHolder(id)) !== null);
      const stream = await a.fetch(
        new Request(`http://a.test/sessions/${id}/stream`, { headers: HEADERS }),
      );
      expect(stream.status).toBe(200);
      const events = sseEvents(await stream.text());
      const answer = (await (await run).json()) as { messages: { content: string }[] };
      // From the start of the run (the stream opened while it ran): input, tool call, answer.
      expect(events.map((e) => e.event)).toEqual([
        'TextMessage',
        'ToolCallRequestEvent',
        'ToolCallExecutionEvent',
        'TextMessage',
        'UserInputRequestedEvent',
        'result',
      ]);
      expect(events.at(-1)?.event).toBe('result');
      const result = JSON.parse(events.at(-1)?.data ?? '{}') as {
        status: string;
        messages: unknown[];
      };
      expect(result.status).toBe('awaiting_input');
      expect(result.messages).toEqual(answer.messages);
      expect(
        events.some((e) => e.event === 'TextMessage' && e.data.includes('reply 1: slow one')),
      ).toBe(true);
    } finally {
      await a.close();
      await dispatcher.close();
      await store.close();
    }
  }, 120_000);

  it("streams the worker's chunks live to a client of another server (the queue engine's channel)", async () => {
    const { store: storeName, workflow } = names();
    const env = { QD_ENGINE: engine, QD_STORE: storeName, QD_NAME: workflow, QD_STREAM: '1' };
    const worker = startChild(
      'src/cli/main.ts',
      ['worker', 'test/support/queue-desk-module.ts', '--queue', QUEUE_URL[engine]],
      /(Baton worker): /,
      env,
    );
    children.push(worker);
    await worker.printed;
    const store = storeOf(engine, storeName);
    const dispatcher = dispatcherOf(engine, `baton.${workflow}`);
    const a = serve(queueDesk(store, workflow), { token: TOKEN, dispatcher });
    try {
      const created = await a.fetch(
        new Request('http://a.test/sessions', { method: 'POST', headers: HEADERS, body: '{}' }),
      );
      const { id } = (await created.json()) as { id: string };
      const answer = await a.fetch(
        new Request(`http://a.test/sessions/${id}/runs`, {
          method: 'POST',
          headers: { ...HEADERS, accept: 'text/event-stream' },
          body: JSON.stringify({ input: 'slow one' }),
        }),
      );
      const events = sseEvents(await answer.text());
      // The answer streamed by the worker reached this server as a chunk, before the step that
      // commits it; the result is the run's.
      expect(events.map((e) => e.event)).toEqual([
        'TextMessage',
        'ModelClientStreamingChunkEvent',
        'ToolCallRequestEvent',
        'ToolCallExecutionEvent',
        'TextMessage',
        'UserInputRequestedEvent',
        'result',
      ]);
      expect(JSON.parse(events[1]?.data ?? '{}')).toMatchObject({ content: 'reply 1: slow one' });
    } finally {
      await a.close();
      await dispatcher.close();
      await store.close();
    }
  }, 120_000);

  it('lets the running turn finish on SIGTERM, then exits', async () => {
    const { store: storeName, workflow } = names();
    const env = { QD_ENGINE: engine, QD_STORE: storeName, QD_NAME: workflow };
    const worker = startChild(
      'src/cli/main.ts',
      ['worker', 'test/support/queue-desk-module.ts', '--queue', QUEUE_URL[engine]],
      /(Baton worker): /,
      env,
    );
    const server = startChild(
      'test/support/queue-serve.ts',
      [engine, storeName, workflow],
      /serving (\S+)/,
    );
    children.push(worker, server);
    const [, url] = await Promise.all([worker.printed, server.printed]);
    const store = storeOf(engine, storeName);
    try {
      const created = await fetch(`${url}/sessions`, {
        method: 'POST',
        headers: HEADERS,
        body: '{}',
      });
      const { id } = (await created.json()) as { id: string };
      const run = fetch(`${url}/sessions/${id}/runs`, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({ input: 'slow one' }),
      });
      await waitFor(async () => (await store.leaseHolder(id)) !== null);
      worker.process.kill('SIGTERM');
      const answer = (await (await run).json()) as {
        status: string;
        messages: { type: string; content: string }[];
      };
      expect(answer.status).toBe('awaiting_input');
      expect(answer.messages.filter((m) => m.type === 'TextMessage').map((m) => m.content)).toEqual(
        ['slow one', 'reply 1: slow one'],
      );
      expect(await worker.exited).toBe(143);
      expect(await store.leaseHolder(id)).toBeNull();
    } finally {
      await store.close();
    }
  }, 120_000);
});

function sseEvents(text: string): { event: string; data: string }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event =
        lines
          .find((l) => l.startsWith('event:'))
          ?.slice(6)
          .trim() ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n');
      return { event, data };
    });
}

async function waitFor(check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
