import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import pg from 'pg';
import { describe, expect, it } from 'vitest';

import {
  type AgentMessage,
  type FunctionCall,
  type FunctionExecutionResult,
  PostgresCheckpointStore,
} from '../../src/index.js';
import {
  FINAL_PHRASE,
  type RaceWorkerConfig,
  type RaceWorkerStats,
  raceDesk,
  raceSessionIds,
  userReply,
} from '../support/race-worker.js';
import { SKIP_NOTES } from '../support/skip-notes.js';
import { bundledScript } from '../support/bundled-script.js';
import { dropStatement } from '../../src/checkpoint/postgres-sql.js';

const DATABASE_URL =
  process.env.BATON_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const START = 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start';
const SESSIONS = 100;
const WORKERS = 4;
const LANES = 3;
const BLOCK = 8;
const WORKER_DEADLINE_MS = 45_000;

const root = fileURLToPath(new URL('../../', import.meta.url));
const WORKER = bundledScript('test/support/race-worker.ts');

/** A pool on the test database, or undefined (the test skips) when the server is down. */
async function connect(): Promise<pg.Pool | undefined> {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await pool.query('SELECT 1');
    return pool;
  } catch (error) {
    await pool.end();
    if (process.env.BATON_REQUIRE_SERVICES === '1') {
      throw new Error(
        `PostgreSQL is down: not reachable at ${new URL(DATABASE_URL).host} (${error}). ` +
          `Start it with: ${START} (or unset BATON_REQUIRE_SERVICES to skip this test).`,
        { cause: error },
      );
    }
    return undefined;
  }
}

/** Starts a worker; resolves `ready` once it is connected and `done` with its stats. */
function startWorker(config: RaceWorkerConfig) {
  const child = spawn(process.execPath, [WORKER, JSON.stringify(config)], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => undefined); // a worker that died early closed its stdin
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let stats: RaceWorkerStats | undefined;
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'ready') onReady();
    if (line.startsWith('result ')) stats = JSON.parse(line.slice('result '.length));
  });
  const done = new Promise<RaceWorkerStats>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0 && stats !== undefined) resolve(stats);
      else reject(new Error(`${config.worker} exited (${code ?? signal}):\n${stderr}`));
    });
  });
  // A worker that dies before it is ready must not leave the test waiting for `ready`.
  done.catch(() => onReady());
  return { child, ready, done, go: () => child.stdin.end('go\n') };
}

/** A message as one line: type, source and what it says, without generated ids and times. */
function line(m: AgentMessage): string {
  switch (m.type) {
    case 'ToolCallRequestEvent':
      return `${m.type}(${m.source}): ${m.content.map((c) => `${c.name} ${c.arguments}`).join(', ')}`;
    case 'ToolCallExecutionEvent':
      return `${m.type}(${m.source}): ${m.content.map((r) => `${r.name} -> ${r.content}`).join(', ')}`;
    case 'HandoffMessage':
      return `${m.type}(${m.source} -> ${m.target}): ${m.content}`;
    default:
      return `${m.type}(${m.source}): ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`;
  }
}

/** The thread every session must end with: each user reply and each answer exactly once. */
function expectedThread(id: string): string[] {
  const handoff = (from: string, to: string) => [
    `ToolCallRequestEvent(${from}): handoff_to_${to} {}`,
    `ToolCallExecutionEvent(${from}): handoff_to_${to} -> Transferred to ${to}, adopting the role of ${to} immediately.`,
    `HandoffMessage(${from} -> ${to}): Transferred to ${to}, adopting the role of ${to} immediately.`,
  ];
  const answer = (agent: string, turn: number, end = '') => {
    const result = `ticket ${id}/${turn} is open (${agent})`;
    const text = `${agent} answers turn ${turn}: ${result}.${end}`;
    // The answer that ends the session asks the user nothing.
    return [
      `ToolCallRequestEvent(${agent}): lookup_ticket {"ticket":"${id}/${turn}"}`,
      `ToolCallExecutionEvent(${agent}): lookup_ticket -> ${result}`,
      `TextMessage(${agent}): ${text}`,
      ...(end === '' ? [`UserInputRequestedEvent(${agent}): ${text}`] : []),
    ];
  };
  return [
    `TextMessage(user): ${userReply(id, 1)}`,
    ...handoff('triage', 'billing'),
    ...answer('billing', 1),
    `TextMessage(user): ${userReply(id, 2)}`,
    ...handoff('triage', 'tech'),
    ...answer('tech', 2),
    `TextMessage(user): ${userReply(id, 3)}`,
    ...handoff('triage', 'billing'),
    ...handoff('billing', 'tech'),
    ...answer('tech', 3, ` ${FINAL_PHRASE}`),
  ];
}

/** Calls and results of a thread, by call id: every call must have exactly one result. */
function toolPairs(thread: readonly AgentMessage[]) {
  const calls: FunctionCall[] = [];
  const results: FunctionExecutionResult[] = [];
  for (const m of thread) {
    if (m.type === 'ToolCallRequestEvent') calls.push(...m.content);
    if (m.type === 'ToolCallExecutionEvent') results.push(...m.content);
  }
  return {
    callIds: calls.map((c) => c.id).sort(),
    resultIds: results.map((r) => r.callId).sort(),
  };
}

const STEPS = [
  'user_input',
  'agent_response:triage',
  'agent_response:billing',
  'user_input',
  'agent_response:triage',
  'agent_response:tech',
  'user_input',
  'agent_response:triage',
  'agent_response:billing',
  'agent_response:tech',
];

describe('PostgresCheckpointStore shared by several processes', () => {
  it(`lets ${WORKERS} worker processes race over ${SESSIONS} sessions; each ends complete, every message once`, async (ctx) => {
    const admin = await connect();
    if (admin === undefined) return ctx.skip(SKIP_NOTES.postgres);
    const table = `baton_race_${randomBytes(6).toString('hex')}`;
    const workers: ReturnType<typeof startWorker>[] = [];
    const started = Date.now();
    const sharedSeed = randomBytes(4).readUInt32LE();
    try {
      for (let i = 0; i < WORKERS; i++) {
        const seed = randomBytes(4).readUInt32LE();
        workers.push(
          startWorker({
            connectionString: DATABASE_URL,
            table,
            sessions: SESSIONS,
            worker: `worker-${i}`,
            lanes: LANES,
            sharedSeed,
            block: BLOCK,
            seed,
            deadlineMs: WORKER_DEADLINE_MS,
          }),
        );
      }
      // Start together, so that the workers overlap from the first session on.
      await Promise.all(workers.map((w) => w.ready));
      for (const w of workers) w.go();
      const stats = await Promise.all(workers.map((w) => w.done));

      const store = new PostgresCheckpointStore({ connectionString: DATABASE_URL, table });
      const wrong: string[] = [];
      for (const id of raceSessionIds(SESSIONS)) {
        // A fresh workflow object per session: nothing is cached from another read.
        const session = raceDesk(store).session(id);
        const info = await session.info();
        const thread = await session.messages();
        const steps = (await session.checkpoints()).map((c) => c.event);
        const { callIds, resultIds } = toolPairs(thread);
        const ids = thread.map((m) => m.id);
        const actual = {
          status: info.status,
          step: info.step,
          thread: thread.map(line),
          steps,
          uniqueMessageIds: new Set(ids).size === ids.length,
          uniqueCallIds: new Set(callIds).size === callIds.length,
          callsWithOneResult: JSON.stringify(callIds) === JSON.stringify(resultIds),
          leaseHolder: await store.leaseHolder(id),
        };
        const expected = {
          status: 'terminated',
          step: STEPS.length,
          thread: expectedThread(id),
          steps: STEPS,
          uniqueMessageIds: true,
          uniqueCallIds: true,
          callsWithOneResult: true,
          leaseHolder: null,
        };
        // Shows how the first wrong session differs, then which sessions are wrong.
        if (JSON.stringify(actual) !== JSON.stringify(expected)) {
          wrong.push(id);
          if (wrong.length === 1) expect.soft({ id, ...actual }).toEqual({ id, ...expected });
        }
      }
      await store.close();
      expect(wrong).toEqual([]);

      type Counter = Exclude<keyof RaceWorkerStats, 'worker'>;
      const total = (key: Counter) => stats.reduce((sum, s) => sum + s[key], 0);
      const summary = {
        sessions: SESSIONS,
        workers: WORKERS,
        busy: total('busy'),
        busyOnCommit: total('busyOnCommit'),
        replies: total('replies'),
        emptyRuns: total('emptyRuns'),
        finishedTurns: total('finishedTurns'),
        sawRunning: total('sawRunning'),
        raceMs: Math.max(...stats.map((s) => s.ms)),
        totalMs: Date.now() - started,
        perWorker: stats.map((s) => `${s.worker}: ${s.replies} replies, ${s.busy} busy`),
      };
      // Shown with a failure and by --reporter=verbose.
      await ctx.annotate(`postgres race: ${JSON.stringify(summary)}`);
      // They raced: some runs met another process's run of the same session.
      expect(summary.busy).toBeGreaterThan(0);
    } finally {
      for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
      await admin.query(dropStatement(table));
      await admin.end();
    }
  }, 60_000);
});
