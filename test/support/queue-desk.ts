/**
 * The desk of the worker tests (test/integration/workers-*.test.ts): one clerk who answers every
 * user text with `reply <k>: <text>`, k counting the user's texts so far — a pure function of the
 * thread, so any worker can make any turn and the transcript is the one an in-process run gives.
 * A text holding "slow" makes the clerk call the `wait` tool (SLOW_MS) first.
 *
 * Run as a process: `node --import tsx test/support/queue-desk.ts <pg|redis> <store name> <queue>
 * [concurrency]` starts a worker on that store and queue, prints `ready`, and closes on SIGTERM
 * (printing `closed`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

import pg from 'pg';
import { z } from 'zod';

import {
  Agent,
  BullMQDispatcher,
  type CheckpointStore,
  type Dispatcher,
  HandoffBuilder,
  type HandoffWorkflow,
  type ModelRequest,
  PgBossDispatcher,
  PostgresCheckpointStore,
  RedisCheckpointStore,
  ScriptedChatClient,
  type ScriptedStep,
  speakerOf,
  startWorker,
  tool,
} from '../../src/index.js';

export const PG_URL = process.env.BATON_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.BATON_TEST_REDIS ?? 'redis://127.0.0.1:6379';
/** How long the `wait` tool waits (QD_SLOW_MS in a worker process). */
export const SLOW_MS = Number(process.env.QD_SLOW_MS ?? 1500);

export type Engine = 'pg' | 'redis';

/** The user's texts in the thread. */
function userTexts(request: ModelRequest): string[] {
  return request.messages.filter((m) => speakerOf(m) === 'user').map((m) => m.content ?? '');
}

/**
 * The desk; `clerk` names its one agent (another name is a build that cannot take over a session
 * paused on the clerk's question). A text holding "boom" makes the model fail, every time.
 */
export function queueDesk(
  store: CheckpointStore,
  name = 'queue-desk',
  clerkName = 'clerk',
): HandoffWorkflow {
  const wait = tool({
    name: 'wait',
    description: 'Waits a while.',
    parameters: z.object({}),
    // No side effect: a worker killed while it waits runs it again (API.md §17).
    effect: 'read',
    execute: async () => {
      // The recovery bench (bench/workers.ts) learns from this which process runs the turn.
      if (process.env.QD_TRACE === '1') process.stdout.write('waiting\n');
      await sleep(SLOW_MS);
      return 'waited';
    },
  });
  const clerk = new Agent({
    name: clerkName,
    description: 'Answers.',
    tools: [wait],
    maxToolIterations: 2,
    // QD_STREAM=1: the clerk streams its answers (its chunks cross processes on the channel).
    stream: process.env.QD_STREAM === '1',
    client: new ScriptedChatClient((request): ScriptedStep => {
      const texts = userTexts(request);
      const text = texts.at(-1) ?? '';
      const last = request.messages.at(-1);
      if (text.includes('boom')) throw new Error('the model is down');
      if (text.includes('slow') && last?.role !== 'tool') {
        return {
          content: null,
          toolCalls: [{ id: `wait-${texts.length}`, name: 'wait', arguments: '{}' }],
        };
      }
      return { content: `reply ${texts.length}: ${text}` };
    }),
  });
  return new HandoffBuilder({ name, participants: [clerk] })
    .coordinator(clerk)
    .withCheckpointing(store)
    .build();
}

/**
 * The store of `engine` under `name` (a table prefix, or a key prefix). Postgres gets a pool of 4
 * connections: the chaos test runs five processes beside the rest of the suite, and pg's default
 * of 10 per pool ran the server out of connections ("too many clients already").
 */
export function storeOf(engine: Engine, name: string): CheckpointStore {
  if (engine === 'redis') {
    return new RedisCheckpointStore({ url: REDIS_URL, keyPrefix: `${name}:` });
  }
  const pool = new pg.Pool({ connectionString: PG_URL, max: 4, allowExitOnIdle: true });
  pool.on('error', () => {});
  return new PostgresCheckpointStore({ pool, table: name });
}

/**
 * A dispatcher of `engine` on `queue`, with the test's faster recovery for BullMQ (its defaults
 * with QD_DEFAULTS=1). QD_PG_HEARTBEAT sets pg-boss's `heartbeatSeconds`.
 */
export function dispatcherOf(engine: Engine, queue: string): Dispatcher {
  if (engine === 'pg') {
    const heartbeat = process.env.QD_PG_HEARTBEAT;
    // Three connections, not pg-boss's ten: the worker tests run several servers and workers at
    // once beside the rest of the suite, on a PostgreSQL that allows 100.
    return new PgBossDispatcher(
      { connectionString: PG_URL },
      heartbeat === undefined
        ? { queue, max: 3 }
        : { queue, max: 3, heartbeatSeconds: Number(heartbeat) },
    );
  }
  const { hostname, port } = new URL(REDIS_URL);
  return new BullMQDispatcher(
    { connection: { host: hostname, port: Number(port) } },
    process.env.QD_DEFAULTS === '1' ? { queue } : { queue, lockDurationMs: 4000 },
  );
}

async function main(): Promise<void> {
  const [engine, name, queue, concurrency] = process.argv.slice(2);
  if ((engine !== 'pg' && engine !== 'redis') || name === undefined || queue === undefined) {
    throw new Error('usage: queue-desk.ts <pg|redis> <store name> <queue> [concurrency]');
  }
  const store = storeOf(engine, name);
  const dispatcher = dispatcherOf(engine, queue);
  const worker = await startWorker(queueDesk(store), {
    dispatcher,
    concurrency: Number(concurrency ?? '10'),
    shutdownTimeoutMs: 10_000,
  });
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => {
    void (async () => {
      await worker.close();
      await dispatcher.close();
      await store.close();
      process.stdout.write('closed\n');
      process.exit(0);
    })();
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
}
