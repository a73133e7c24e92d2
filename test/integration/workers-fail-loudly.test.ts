// API.md §25 (workers fail loudly), across real processes on pg-boss and BullMQ: a job that cannot
// run — its session paused by a build this worker cannot take over (issue 43's rolling deploy that
// renames an agent), an input whose run fails every time, a workflow no worker serves — ends with
// the error at the client on every route, within the job's attempts; the worker logs one line per
// failed job, and the job ends failed in the queue, never retried forever.
import { randomBytes } from 'node:crypto';

import { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { serve } from '../../src/index.js';
import {
  dispatcherOf,
  type Engine,
  PG_URL,
  queueDesk,
  REDIS_URL,
  storeOf,
} from '../support/queue-desk.js';
import { type Child, startChild, stopChild } from '../support/queue-processes.js';

const TOKEN = 'workers-token';
const HEADERS = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const ENGINES = (process.env.WORKERS_ENGINES ?? 'pg,redis').split(',') as Engine[];
const QUEUE_URL = { pg: PG_URL, redis: REDIS_URL };

/**
 * How the session's jobs ended, oldest first, once none is left to run: `failed` for a job failed
 * for good (on pg-boss a job completed with `{ failed }` as its output, since a failed job there
 * would hold up the session's later inputs).
 */
async function jobStates(engine: Engine, queue: string, sessionId: string): Promise<string[]> {
  for (;;) {
    const states = await readJobStates(engine, queue, sessionId);
    if (states.every((s) => s === 'failed' || s === 'completed')) return states;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function readJobStates(engine: Engine, queue: string, sessionId: string): Promise<string[]> {
  if (engine === 'pg') {
    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    try {
      const { rows } = await pool.query<{ state: string }>(
        `SELECT CASE WHEN state = 'completed' AND output ? 'failed' THEN 'failed' ELSE state::text END AS state
         FROM pgboss.job WHERE name = $1 AND singleton_key = $2 ORDER BY created_on`,
        [queue, sessionId],
      );
      return rows.map((r) => r.state);
    } finally {
      await pool.end();
    }
  }
  const { hostname, port } = new URL(REDIS_URL);
  const bull = new Queue(queue, { connection: { host: hostname, port: Number(port) } });
  try {
    const jobs = await bull.getJobs(['failed', 'completed', 'waiting', 'active', 'delayed']);
    const states = await Promise.all(
      jobs
        .filter((j) => (j.data as { sessionId?: string }).sessionId === sessionId)
        .sort((a, b) => a.timestamp - b.timestamp)
        .map((j) => j.getState()),
    );
    return states.map(String);
  } finally {
    await bull.close();
  }
}

describe.each(ENGINES)('workers that cannot run a job, on %s', (engine) => {
  const suffix = randomBytes(4).toString('hex');
  const storeName = `wf${suffix}`;
  /** A queue whose worker renamed the clerk, one whose worker is the same build, one unserved. */
  const renamed = `desk-renamed-${suffix}`;
  const same = `desk-same-${suffix}`;
  const unserved = `desk-alone-${suffix}`;
  const store = storeOf(engine, storeName);
  const workers: Child[] = [];
  const worker = (name: string, env: Record<string, string> = {}) =>
    startChild(
      'src/cli/main.ts',
      ['worker', 'test/support/queue-desk-module.ts', '--queue', QUEUE_URL[engine]],
      /(Baton worker): /,
      { QD_ENGINE: engine, QD_STORE: storeName, QD_NAME: name, ...env },
    );

  beforeAll(async () => {
    workers.push(worker(renamed, { QD_CLERK: 'helper' }), worker(same));
    await Promise.all(workers.map((w) => w.printed));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => stopChild(w)));
    await store.close();
  }, 60_000);

  it('gives every route the error of a session the worker cannot take over; the jobs end failed', async () => {
    const id = `paused-${suffix}`;
    // Paused on the clerk's question by the build of last week (no queue involved).
    await queueDesk(store, renamed).session(id, { owner: 'default' }).run('hello');
    const dispatcher = dispatcherOf(engine, `baton.${renamed}`);
    const handler = serve(queueDesk(store, renamed), { token: TOKEN, dispatcher });
    const reason = `Session "${id}" cannot be taken over by this workflow: its pending request names agent "clerk", which this workflow does not have. Run it with the workflow that wrote it until it ends, or delete it.`;
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      handler.fetch(
        new Request(`http://server.test${path}`, {
          method: 'POST',
          headers: { ...HEADERS, ...headers },
          body: JSON.stringify(body),
        }),
      );
    try {
      const runs = await post(`/sessions/${id}/runs`, { input: 'json' });
      expect({ status: runs.status, body: await runs.json() }).toEqual({
        status: 500,
        body: { error: { code: 'run_failed', message: reason } },
      });
      const sse = await post(
        `/sessions/${id}/runs`,
        { input: 'sse' },
        { accept: 'text/event-stream' },
      );
      const events = await sse.text();
      expect(events).toContain(
        `event: error\ndata: ${JSON.stringify({ error: { code: 'run_failed', message: reason } })}`,
      );
      const chat = await post('/chat', {
        id,
        messages: [{ id: `c-${suffix}`, role: 'user', parts: [{ type: 'text', text: 'chat' }] }],
      });
      expect(await chat.text()).toContain(JSON.stringify({ type: 'error', errorText: reason }));
      const agui = await post('/ag-ui', {
        threadId: id,
        runId: `r-${suffix}`,
        messages: [{ id: `a-${suffix}`, role: 'user', content: 'ag-ui' }],
      });
      expect(await agui.text()).toContain(
        JSON.stringify({ type: 'RUN_ERROR', message: reason, code: 'run_failed' }),
      );
      const lines = workers[0]
        ?.output()
        .split('\n')
        .filter((l) => l.startsWith('Baton worker: job'));
      expect(lines).toHaveLength(4);
      for (const line of lines ?? []) {
        expect(line).toMatch(
          new RegExp(`^Baton worker: job \\S+ of session "${id}" failed after 3 attempts: `),
        );
        expect(line.endsWith(reason)).toBe(true);
      }
      expect(await jobStates(engine, `baton.${renamed}`, id)).toEqual([
        'failed',
        'failed',
        'failed',
        'failed',
      ]);
    } finally {
      await handler.close();
      await dispatcher.close();
    }
  }, 60_000);

  it('gives the client the error of an input that fails every time, after 3 attempts', async () => {
    const dispatcher = dispatcherOf(engine, `baton.${same}`);
    const handler = serve(queueDesk(store, same), { token: TOKEN, dispatcher });
    try {
      const created = await handler.fetch(
        new Request('http://server.test/sessions', {
          method: 'POST',
          headers: HEADERS,
          body: '{}',
        }),
      );
      const { id } = (await created.json()) as { id: string };
      const answer = await handler.fetch(
        new Request(`http://server.test/sessions/${id}/runs`, {
          method: 'POST',
          headers: HEADERS,
          body: JSON.stringify({ input: 'boom' }),
        }),
      );
      expect(answer.status).toBe(500);
      const body = (await answer.json()) as { error: { message: string } };
      expect(body.error.message).toContain('the model is down');
      const line = workers[1]
        ?.output()
        .split('\n')
        .find((l) => l.includes(`of session "${id}"`));
      expect(line).toMatch(/^Baton worker: job \S+ of session "\S+" failed after 3 attempts: /);
      expect(await jobStates(engine, `baton.${same}`, id)).toEqual(['failed']);
      // The session goes on with the next input.
      const next = await handler.fetch(
        new Request(`http://server.test/sessions/${id}/runs`, {
          method: 'POST',
          headers: HEADERS,
          body: JSON.stringify({ input: 'hello' }),
        }),
      );
      expect(next.status).toBe(200);
    } finally {
      await handler.close();
      await dispatcher.close();
    }
  }, 60_000);

  it('tells the client when no worker serves the workflow, naming the queues that are served', async () => {
    const dispatcher = dispatcherOf(engine, `baton.${unserved}`);
    const handler = serve(queueDesk(store, unserved), { token: TOKEN, dispatcher });
    try {
      const created = await handler.fetch(
        new Request('http://server.test/sessions', {
          method: 'POST',
          headers: HEADERS,
          body: '{}',
        }),
      );
      const { id } = (await created.json()) as { id: string };
      const answer = await handler.fetch(
        new Request(`http://server.test/sessions/${id}/runs`, {
          method: 'POST',
          headers: HEADERS,
          body: JSON.stringify({ input: 'anyone?' }),
        }),
      );
      expect(answer.status).toBe(500);
      const { error } = (await answer.json()) as { error: { message: string } };
      expect(error.message).toMatch(
        new RegExp(`^No worker serves queue "baton\\.${unserved}" \\(workers serve "baton\\.`),
      );
      expect(error.message).toContain(`"baton.${renamed}"`);
      expect(error.message).toContain(`"baton.${same}"`);
    } finally {
      await handler.close();
      await dispatcher.close();
    }
  }, 60_000);
});
