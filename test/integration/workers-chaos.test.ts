// API.md §16 chaos: one server process and three worker processes; 200 sessions of 5 turns each
// go through HTTP while a driver SIGKILLs a random worker every 400 ms (for the first CHAOS_MS)
// and starts a new one. Every session ends with exactly the transcript of the same inputs run
// in one process: no step lost, none doubled, in order. On pg-boss and on BullMQ.
//
// Settings (test/support/queue-desk.ts): pg-boss's defaults (a live worker hands over a dead
// one's job after handOverSeconds, 4; pg-boss's own heartbeatSeconds, 10, behind it); BullMQ
// lockDurationMs 4000; Baton's lease as in production (3 s).
import { randomBytes } from 'node:crypto';

import { afterAll, describe, expect, it } from 'vitest';

import { type AgentMessage, MemoryCheckpointStore } from '../../src/index.js';
import { type Engine, queueDesk } from '../support/queue-desk.js';
import { type Child, startChild, stopChild } from '../support/queue-processes.js';

const SESSIONS = Number(process.env.CHAOS_SESSIONS ?? 200);
const TURNS = 5;
const WORKERS = 3;
const KILL_EVERY_MS = 400;
const CHAOS_MS = 20_000;
/** Sessions driven at once (each sends its turns one after another). */
const PARALLEL = 50;
const HEADERS = { authorization: 'Bearer workers-token', 'content-type': 'application/json' };
const ENGINES = (process.env.WORKERS_ENGINES ?? 'pg,redis').split(',') as Engine[];

/** The input of turn `k` of session `s`: every seventh session's third turn makes a slow tool call. */
const input = (s: number, k: number): string =>
  s % 7 === 0 && k === 2 ? `s${s} t${k} slow` : `s${s} t${k}`;

/** What a transcript is compared by: everything but ids and times. */
function shape(messages: readonly AgentMessage[]): unknown[] {
  return messages.map((m) => {
    const { id: _id, createdAt: _at, ...rest } = m as AgentMessage & { requestId?: string };
    return 'requestId' in rest ? { ...rest, requestId: 'r' } : rest;
  });
}

/** JSON with sorted keys. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

describe.each(ENGINES)('chaos on %s', (engine) => {
  const children = new Set<Child>();
  afterAll(async () => {
    await Promise.all([...children].map((c) => stopChild(c, 2000)));
  }, 60_000);

  it(`${SESSIONS} sessions of ${TURNS} turns end with the in-process transcript while workers die`, async () => {
    const suffix = randomBytes(4).toString('hex');
    const storeName = `wc${suffix}`;
    const workflow = `chaos-${suffix}`;
    const server = startChild(
      'test/support/queue-serve.ts',
      [engine, storeName, workflow],
      /serving (\S+)/,
    );
    children.add(server);
    const startWorker = (): Child => {
      const child = startChild(
        'test/support/queue-desk.ts',
        [engine, storeName, `baton.${workflow}`, '10'],
        /(ready)/,
      );
      children.add(child);
      return child;
    };
    const workers = Array.from({ length: WORKERS }, startWorker);
    const url = await server.printed;
    await Promise.all(workers.map((w) => w.printed));

    // The driver: kill a random worker, start another in its place.
    let kills = 0;
    let driving = true;
    const began = Date.now();
    const driver = (async () => {
      while (driving && Date.now() - began < CHAOS_MS) {
        await new Promise((r) => setTimeout(r, KILL_EVERY_MS));
        const i = Math.floor(Math.random() * WORKERS);
        const victim = workers[i];
        if (victim === undefined) continue;
        victim.process.kill('SIGKILL');
        kills++;
        await victim.exited;
        children.delete(victim);
        workers[i] = startWorker();
      }
    })();

    const ids: string[] = [];
    for (let s = 0; s < SESSIONS; s++) {
      const created = await fetch(`${url}/sessions`, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({ id: `${suffix}-${s}` }),
      });
      expect(created.status).toBe(201);
      ids.push(`${suffix}-${s}`);
    }
    const failures: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        for (let s = next++; s < SESSIONS; s = next++) {
          for (let k = 0; k < TURNS; k++) {
            const answer = await fetch(`${url}/sessions/${ids[s]}/runs`, {
              method: 'POST',
              headers: HEADERS,
              body: JSON.stringify({ input: input(s, k) }),
            });
            if (answer.status !== 200)
              failures.push(`${s}/${k}: ${answer.status} ${await answer.text()}`);
            else await answer.text();
          }
        }
      }),
    );
    driving = false;
    await driver;
    expect(failures).toEqual([]);
    expect(kills).toBeGreaterThan(5);

    // The transcript of each session against the same inputs run in this process.
    const wrong: string[] = [];
    for (let s = 0; s < SESSIONS; s++) {
      const local = queueDesk(new MemoryCheckpointStore(), workflow).session(ids[s]);
      for (let k = 0; k < TURNS; k++) await local.run(input(s, k));
      const expected = shape(await local.messages());
      const answer = await fetch(`${url}/sessions/${ids[s]}/messages`, { headers: HEADERS });
      const { messages } = (await answer.json()) as { messages: AgentMessage[] };
      const got = shape(messages);
      if (canonical(got) !== canonical(expected)) {
        wrong.push(`${ids[s]}: ${canonical(got)} vs ${canonical(expected)}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 400_000);
});
