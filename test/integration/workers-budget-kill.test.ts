// API.md §26 with §16, small: a tenant's daily cap holds while a worker is SIGKILLed in the
// middle of a model call. Two worker processes serve one tenant's 16 sessions against a $0.55
// cap ($0.10 a call); the first one in a call is killed and replaced. The killed calls'
// reservations stay taken (never given back: a crash can only hold money, never free it), so the
// counter ends at exactly five reservations and fewer than five sessions were answered.
import { randomBytes } from 'node:crypto';

import { afterAll, describe, expect, it } from 'vitest';

import { serve } from '../../src/index.js';
import { SpendCounters } from '../../src/checkpoint/spend-counters.js';
import { costDesk } from '../support/cost-desk.js';
import { dispatcherOf, type Engine, storeOf } from '../support/queue-desk.js';
import { type Child, startChild, stopChild } from '../support/queue-processes.js';

const TOKEN = 'budget-kill-token';

describe.each<Engine>(['pg', 'redis'])('a tenant cap while a worker dies, on %s', (engine) => {
  const children = new Set<Child>();
  afterAll(async () => {
    await Promise.all([...children].map((c) => stopChild(c, 2000)));
  }, 60_000);

  it('ends with the tenant’s spend within the cap', async () => {
    const name = `bk${randomBytes(4).toString('hex')}`;
    const queue = `baton.test-${name}`;
    const start = () => {
      const child = startChild(
        'test/support/budget-queue-worker.ts',
        [engine, name, queue, '0.55'],
        /(ready)/,
      );
      children.add(child);
      return child;
    };
    const workers = [start(), start()];
    await Promise.all(workers.map((w) => w.printed));
    const store = storeOf(engine, name);
    const dispatcher = dispatcherOf(engine, queue);
    const handler = serve(costDesk(store, 100, 0).workflow, { token: TOKEN, dispatcher });
    const call = async (path: string, body: unknown) => {
      const response = await handler.fetch(
        new Request(`http://baton.test${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };
    try {
      const ids = await Promise.all(
        Array.from({ length: 16 }, async () => String((await call('/sessions', {})).json.id)),
      );
      const answers = Promise.all(
        ids.map((id) => call(`/sessions/${id}/runs`, { input: 'hello' })),
      );
      // Kill the first worker that is in a model call (its reservation is taken), start another.
      const victim = await Promise.race(
        workers.map(
          (w) =>
            new Promise<Child>((resolve) =>
              w.process.stdout?.on('data', (chunk: Buffer) => {
                if (chunk.toString().includes('calling')) resolve(w);
              }),
            ),
        ),
      );
      victim.process.kill('SIGKILL');
      await victim.exited;
      children.delete(victim);
      await start().printed;
      const results = await answers;
      const kinds = results.map(
        (r) => (r.json.pendingRequest as { kind?: string } | undefined)?.kind,
      );
      const day = new Date().toISOString().slice(0, 10);
      const spent = await new SpendCounters(store).total(`tenant-day:${day}:default`);
      // Five reservations of $0.10 were taken in all: the answered calls' (settled at what they
      // cost, the same) and the killed worker's calls in flight (never given back).
      expect(spent).toBe(500_000);
      const answered = kinds.filter((k) => k === 'input').length;
      expect(answered).toBeLessThanOrEqual(4);
      expect(kinds.filter((k) => k === 'budget')).toHaveLength(16 - answered);
    } finally {
      await handler.close();
      await dispatcher.close();
      await store.close();
    }
  }, 90_000);
});
