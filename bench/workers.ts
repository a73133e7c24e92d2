// Workers (issue 30): what a queue adds to a turn, turns per second with 1–3 worker processes, and
// how long a session waits after its worker is SIGKILLed. Prints a JSON line of figures.
//
// `overhead`: one session per mode, turn by turn, the modes alternating: in-process serve() on the
// PostgresCheckpointStore, then serve({dispatcher}) with a worker in the same process on the same
// store, through pg-boss and through BullMQ — so the difference is the queue alone.
// `throughput <pg|redis> <workers>`: 60 sessions × 3 turns at once through serve() to <workers>
// worker processes (test/support/queue-desk.ts); turns per second.
// `recovery <pg|redis>`: two worker processes with default settings; the one that runs a slow
// turn is SIGKILLed mid-turn; the time from the kill until the other starts the turn again.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import {
  type CheckpointStore,
  type Dispatcher,
  PostgresCheckpointStore,
  serve,
  startWorker,
} from '../src/index.js';
import {
  dispatcherOf,
  type Engine,
  PG_URL,
  queueDesk,
  storeOf,
} from '../test/support/queue-desk.js';
import { type Child, startChild, stopChild } from '../test/support/queue-processes.js';
import { percentile as percentileOfSorted } from './relay.js';

const percentile = (xs: readonly number[], p: number) =>
  percentileOfSorted(
    [...xs].sort((a, b) => a - b),
    p / 100,
  );

const HEADERS = { authorization: 'Bearer workers-token', 'content-type': 'application/json' };
const [mode = 'overhead', engineArg = 'pg', countArg = '1'] = process.argv.slice(2);
const engine: Engine = engineArg === 'redis' ? 'redis' : 'pg';
type Handler = ReturnType<typeof serve>;

async function post(handler: Handler, path: string, body: unknown): Promise<Response> {
  return handler.fetch(
    new Request(`http://bench${path}`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify(body),
    }),
  );
}

async function newSession(handler: Handler): Promise<string> {
  return ((await (await post(handler, '/sessions', {})).json()) as { id: string }).id;
}

async function overhead(): Promise<Record<string, number>> {
  const suffix = randomBytes(4).toString('hex');
  const name = `bw${suffix}`;
  const store: CheckpointStore = new PostgresCheckpointStore({
    connectionString: PG_URL,
    table: name,
  });
  const closers: (() => Promise<void>)[] = [];
  const queued = async (kind: Engine) => {
    const workflow = `bench-${kind}-${suffix}`;
    const dispatcher: Dispatcher = dispatcherOf(kind, `baton.${workflow}`);
    const workerDispatcher: Dispatcher = dispatcherOf(kind, `baton.${workflow}`);
    const workerStore = new PostgresCheckpointStore({ connectionString: PG_URL, table: name });
    const worker = await startWorker(queueDesk(workerStore, workflow), {
      dispatcher: workerDispatcher,
    });
    closers.push(async () => {
      await worker.close();
      await workerDispatcher.close();
      await dispatcher.close();
      await workerStore.close();
    });
    return serve(queueDesk(store, workflow), { token: 'workers-token', dispatcher });
  };
  const handlers: Record<string, Handler> = {
    inProcess: serve(queueDesk(store), { token: 'workers-token' }),
    pgBoss: await queued('pg'),
    bullmq: await queued('redis'),
  };
  const times: Record<string, number[]> = { inProcess: [], pgBoss: [], bullmq: [] };
  const TURNS = 80;
  const WARMUP = 10;
  for (const handler of Object.values(handlers)) {
    const id = await newSession(handler);
    for (let k = 0; k < WARMUP; k++)
      await (await post(handler, `/sessions/${id}/runs`, { input: `w${k}` })).text();
  }
  for (let round = 0; round < TURNS / 20; round++) {
    for (const [kind, handler] of Object.entries(handlers)) {
      const id = await newSession(handler);
      for (let k = 0; k < 20; k++) {
        const began = performance.now();
        const answer = await post(handler, `/sessions/${id}/runs`, { input: `t${k}` });
        await answer.text();
        if (answer.status !== 200) throw new Error(`${kind}: ${answer.status}`);
        times[kind]?.push((performance.now() - began) * 1000);
      }
    }
  }
  for (const close of closers) await close();
  await Promise.all(Object.values(handlers).map((h) => h.close()));
  await store.close();
  const figures: Record<string, number> = { turns: TURNS };
  for (const [kind, list] of Object.entries(times)) {
    figures[`${kind}P50Us`] = percentile(list, 50);
    figures[`${kind}P99Us`] = percentile(list, 99);
  }
  return figures;
}

async function throughput(workers: number): Promise<Record<string, number>> {
  const suffix = randomBytes(4).toString('hex');
  const name = `bt${suffix}`;
  const workflow = `through-${suffix}`;
  const store = storeOf(engine, name);
  const dispatcher = dispatcherOf(engine, `baton.${workflow}`);
  const handler = serve(queueDesk(store, workflow), { token: 'workers-token', dispatcher });
  const children = Array.from({ length: workers }, () =>
    startChild('test/support/queue-desk.ts', [engine, name, `baton.${workflow}`, '10'], /(ready)/),
  );
  await Promise.all(children.map((c) => c.printed));
  const SESSIONS = 60;
  const TURNS = 3;
  const ids = await Promise.all(Array.from({ length: SESSIONS }, () => newSession(handler)));
  const began = performance.now();
  await Promise.all(
    ids.map(async (id) => {
      for (let k = 0; k < TURNS; k++)
        await (await post(handler, `/sessions/${id}/runs`, { input: `t${k}` })).text();
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  await Promise.all(children.map((c) => stopChild(c)));
  await handler.close();
  await dispatcher.close();
  await store.close();
  return { workers, turns: SESSIONS * TURNS, turnsPerSecond: (SESSIONS * TURNS) / seconds };
}

async function recovery(): Promise<Record<string, number>> {
  const suffix = randomBytes(4).toString('hex');
  const name = `br${suffix}`;
  const workflow = `recover-${suffix}`;
  const store = storeOf(engine, name);
  const dispatcher = dispatcherOf(engine, `baton.${workflow}`);
  const handler = serve(queueDesk(store, workflow), { token: 'workers-token', dispatcher });
  // Default settings; each worker prints "waiting" when it starts the slow turn's tool call.
  const worker = () =>
    startChild('test/support/queue-desk.ts', [engine, name, `baton.${workflow}`, '10'], /(ready)/, {
      QD_DEFAULTS: '1',
      QD_TRACE: '1',
    });
  const waiting = (child: Child) => child.output().includes('waiting');
  const TRIALS = Number(process.env.RECOVERY_TRIALS ?? 5);
  const waits: number[] = [];
  const workers = [worker(), worker()];
  await Promise.all(workers.map((w) => w.printed));
  for (let t = 0; t < TRIALS; t++) {
    const id = await newSession(handler);
    const answer = post(handler, `/sessions/${id}/runs`, { input: 'slow turn' });
    let victim: Child | undefined;
    while ((victim = workers.find(waiting)) === undefined) await sleep(5);
    const other = workers.find((w) => w !== victim);
    if (other === undefined) throw new Error('recovery: one worker only');
    victim.process.kill('SIGKILL');
    const killed = performance.now();
    while (!waiting(other)) await sleep(5);
    waits.push((performance.now() - killed) * 1000);
    await (await answer).text();
    await victim.exited;
    // Both fresh for the next trial: the survivor has printed "waiting" already.
    await stopChild(other);
    workers.splice(0, 2, worker(), worker());
    await Promise.all(workers.map((w) => w.printed));
  }
  await Promise.all(workers.map((w) => stopChild(w)));
  await handler.close();
  await dispatcher.close();
  await store.close();
  return {
    trials: TRIALS,
    recoveryP50Us: percentile(waits, 50),
    recoveryP95Us: percentile(waits, 95),
    recoveryMaxUs: Math.max(...waits),
  };
}

const figures =
  mode === 'throughput'
    ? await throughput(Number(countArg))
    : mode === 'recovery'
      ? await recovery()
      : await overhead();
console.log(JSON.stringify(figures));
process.exit(0);
