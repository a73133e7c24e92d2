// API.md §25, a rolling deploy across real processes on pg-boss and BullMQ: 40 sessions (the issue
// asks for 200; 40 keep CI fast) paused mid-conversation by the old build — on input, on an
// approval, in doubt — are answered while the two workers are replaced one by one by a build with
// a compatible change (one more agent and tool, other instructions). Every session finishes. With
// an incompatible build (the refund tool gone), `checkSessions` names exactly the sessions paused
// on a refund's approval, and their clients get the error; the others finish.
import { randomBytes } from 'node:crypto';

import { afterAll, describe, expect, it } from 'vitest';

import { type CheckpointStore, checkSessions, serve } from '../../src/index.js';
import { dispatcherOf, type Engine, PG_URL, REDIS_URL, storeOf } from '../support/queue-desk.js';
import { type Child, startChild, stopChild } from '../support/queue-processes.js';
import { rollingDesk } from '../support/rolling-desk.js';

const TOKEN = 'workers-token';
const HEADERS = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const ENGINES = (process.env.WORKERS_ENGINES ?? 'pg,redis').split(',') as Engine[];
const QUEUE_URL = { pg: PG_URL, redis: REDIS_URL };
const SESSIONS = 40;

type Kind = 'input' | 'approval' | 'in_doubt';
const kindOf = (i: number): Kind => (['input', 'approval', 'in_doubt'] as const)[i % 3] ?? 'input';

/** `count` sessions paused by the old build, on input, on an approval or in doubt (by index). */
async function seed(
  store: CheckpointStore,
  name: string,
  suffix: string,
  count: number,
): Promise<string[]> {
  // The old build pauses every session; a charge never returns here, and is cancelled.
  const ids = Array.from({ length: count }, (_, i) => `s${i}-${suffix}`);
  for (const [i, id] of ids.entries()) {
    const kind = kindOf(i);
    if (kind !== 'in_doubt') {
      const text = kind === 'input' ? 'hello' : 'refund please';
      await rollingDesk(store, name, 'old').session(id, { owner: 'default' }).run(text);
      continue;
    }
    let started = () => {};
    const began = new Promise<void>((resolve) => (started = resolve));
    const seeding = rollingDesk(store, name, 'old', () => {
      started();
      return new Promise<string>(() => {});
    });
    const abort = new AbortController();
    const run = seeding.session(id, { owner: 'default' }).run('charge me', {
      signal: abort.signal,
    });
    await began;
    abort.abort();
    expect((await run).status).toBe('cancelled');
    const paused = await rollingDesk(store, name, 'old').session(id).run();
    expect(paused.pendingRequest?.kind).toBe('in_doubt');
  }
  return ids;
}

describe.each(ENGINES)('a rolling deploy on %s', (engine) => {
  const children: Child[] = [];
  afterAll(async () => {
    await Promise.all(children.map((c) => stopChild(c)));
  }, 60_000);

  it('finishes every paused session while the workers are replaced by a compatible build', async () => {
    const suffix = randomBytes(4).toString('hex');
    const name = `rolling-${suffix}`;
    const store = storeOf(engine, `rd${suffix}`);
    const ids = await seed(store, name, suffix, SESSIONS);
    // The new build would take every one of them over.
    const report = await checkSessions(rollingDesk(store, name, 'new'), store);
    expect(report.filter((s) => !s.ok)).toEqual([]);
    expect(report).toHaveLength(SESSIONS);

    const worker = (build: 'old' | 'new') => {
      const child = startChild(
        'src/cli/main.ts',
        ['worker', 'test/support/rolling-desk.ts', '--queue', QUEUE_URL[engine]],
        /(Baton worker): /,
        { RD_ENGINE: engine, RD_STORE: `rd${suffix}`, RD_NAME: name, RD_BUILD: build },
      );
      children.push(child);
      return child;
    };
    const old = [worker('old'), worker('old')];
    await Promise.all(old.map((w) => w.printed));
    const dispatcher = dispatcherOf(engine, `baton.${name}`);
    const handler = serve(rollingDesk(store, name, 'old'), { token: TOKEN, dispatcher });
    const answer = async (i: number) => {
      const id = ids[i] ?? '';
      const kind = kindOf(i);
      const body =
        kind === 'input'
          ? { input: 'more' }
          : {
              decisions: [
                { callId: kind === 'approval' ? 'refund-1' : 'charge-1', approve: false },
              ],
            };
      const response = await handler.fetch(
        new Request(`http://server.test/sessions/${id}/runs`, {
          method: 'POST',
          headers: HEADERS,
          body: JSON.stringify(body),
        }),
      );
      const result = (await response.json()) as {
        status: string;
        messages: { type: string; content: unknown }[];
      };
      return { kind, status: response.status, run: result.status, last: result.messages.at(-1) };
    };
    try {
      const first = Array.from({ length: SESSIONS / 2 }, (_, i) => answer(i));
      // One by one: a worker stops (its running turns finish), one of the new build starts.
      for (const w of old) {
        await stopChild(w);
        await worker('new').printed;
      }
      const second = Array.from({ length: SESSIONS / 2 }, (_, i) => answer(i + SESSIONS / 2));
      const answers = await Promise.all([...first, ...second]);
      expect(answers.filter((a) => a.status !== 200 || a.run !== 'awaiting_input')).toEqual([]);
      expect(
        answers.map((a) => [a.kind, a.last?.type, String(a.last?.content).split(':')[0]]),
      ).toEqual(
        answers.map((a) => [
          a.kind,
          'UserInputRequestedEvent',
          a.kind === 'input' ? 'reply' : 'done',
        ]),
      );
      // The second wave was made by the new build, which recorded itself taking each session over.
      const fingerprint = rollingDesk(store, name, 'new').fingerprint;
      for (const id of ids.slice(SESSIONS / 2)) {
        const records = await store.read(id, { from: 'start' });
        expect(records.filter((r) => r.data.includes(fingerprint))).toHaveLength(1);
      }
    } finally {
      await handler.close();
      await dispatcher.close();
      await store.close();
    }
  }, 120_000);

  it('names the sessions an incompatible build cannot take over; their clients get the error', async () => {
    const suffix = randomBytes(4).toString('hex');
    const name = `rolling-${suffix}`;
    const store = storeOf(engine, `rd${suffix}`);
    const ids = await seed(store, name, suffix, 9);
    const report = await checkSessions(rollingDesk(store, name, 'no-refund'), store);
    const refusing = ids.filter((_, i) => kindOf(i) === 'approval');
    expect(
      report
        .filter((s) => !s.ok)
        .map((s) => s.sessionId)
        .sort(),
    ).toEqual([...refusing].sort());
    const worker = startChild(
      'src/cli/main.ts',
      ['worker', 'test/support/rolling-desk.ts', '--queue', QUEUE_URL[engine]],
      /(Baton worker): /,
      { RD_ENGINE: engine, RD_STORE: `rd${suffix}`, RD_NAME: name, RD_BUILD: 'no-refund' },
    );
    children.push(worker);
    await worker.printed;
    const dispatcher = dispatcherOf(engine, `baton.${name}`);
    const handler = serve(rollingDesk(store, name, 'old'), { token: TOKEN, dispatcher });
    try {
      const answers = await Promise.all(
        ids.map(async (id, i) => {
          const kind = kindOf(i);
          const body =
            kind === 'input'
              ? { input: 'more' }
              : {
                  decisions: [
                    { callId: kind === 'approval' ? 'refund-1' : 'charge-1', approve: false },
                  ],
                };
          const response = await handler.fetch(
            new Request(`http://server.test/sessions/${id}/runs`, {
              method: 'POST',
              headers: HEADERS,
              body: JSON.stringify(body),
            }),
          );
          const json = (await response.json()) as { error?: { message: string } };
          return { id, status: response.status, error: json.error?.message };
        }),
      );
      expect(
        answers
          .filter((a) => a.status !== 200)
          .map((a) => a.id)
          .sort(),
      ).toEqual([...refusing].sort());
      for (const a of answers.filter((x) => x.status !== 200)) {
        expect(a).toEqual({
          id: a.id,
          status: 500,
          error: `Session "${a.id}" cannot be taken over by this workflow: its pending request names tool "refund" of agent "triage", which this workflow does not have. Run it with the workflow that wrote it until it ends, or delete it.`,
        });
      }
    } finally {
      await handler.close();
      await dispatcher.close();
      await store.close();
    }
  }, 120_000);
});
