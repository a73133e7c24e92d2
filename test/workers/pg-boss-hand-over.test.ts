// PgBossDispatcher's hand-over (API.md §16, a worker that dies): a job whose worker stopped
// heartbeating is handed to a live consumer only once no process holds its session's lease —
// both signs of a live holder gone. The "dead worker" here is a PgBoss that fetched the job and
// never touches it; pg-boss's own heartbeat check is an hour away, so only the hand-over can act.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { PgBoss } from 'pg-boss';
import { afterAll, describe, expect, it } from 'vitest';

import { PgBossDispatcher, type RunJob } from '../../src/index.js';
import { PG_URL } from '../support/queue-desk.js';

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

describe('PgBossDispatcher hand-over', () => {
  it("hands over a silent worker's job only once nobody holds the session's lease", async () => {
    const queue = `baton.handover-${randomBytes(4).toString('hex')}`;
    const options = { queue, handOverSeconds: 2, heartbeatSeconds: 3600 };
    const server = new PgBossDispatcher({ connectionString: PG_URL }, options);
    closers.push(() => server.close());
    const job: RunJob = { sessionId: 'held', task: 'hello', inputId: 'm-1' };
    await server.enqueue(queue, job);

    // The worker that dies: it takes the job and never heartbeats.
    const dead = new PgBoss({ connectionString: PG_URL, supervise: false, max: 2 });
    dead.on('error', () => undefined);
    await dead.start();
    closers.push(() => dead.stop({ graceful: false, close: true, timeout: 1000 }));
    const [taken] = await dead.fetch(queue);
    expect(taken?.data).toEqual(job);

    const live = new PgBossDispatcher({ connectionString: PG_URL }, options);
    closers.push(() => live.close());
    let held = true;
    const looked: string[] = [];
    const received: RunJob[] = [];
    const consumer = await live.consume(
      queue,
      async (given) => {
        received.push(given);
        return { done: true };
      },
      {
        concurrency: 1,
        running: async (id) => {
          looked.push(id);
          return held;
        },
      },
    );
    closers.push(() => consumer.stop().catch(() => undefined));

    // The lease is held: the watch looks at the session (again and again) and leaves the job.
    while (looked.length < 3) await sleep(100);
    expect(received).toEqual([]);
    expect((await dead.findJobs(queue, { id: taken!.id }))[0]?.state).toBe('active');

    held = false;
    while (received.length === 0) await sleep(100);
    await consumer.stop();
    expect(received).toEqual([job]);
    expect([...new Set(looked)]).toEqual(['held']);
    const [after] = await dead.findJobs(queue, { id: taken!.id });
    expect({ state: after?.state, retryCount: after?.retryCount }).toEqual({
      state: 'completed',
      retryCount: 1,
    });
  }, 60_000);
});
