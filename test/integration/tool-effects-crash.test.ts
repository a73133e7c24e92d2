// API.md §17, the crash matrix: a real child process (test/support/effects-crash-worker.ts) is
// SIGKILLed at each point of a batch's life — before the start commit, after it and before the
// tools run, while they run, after they ran and before their results are committed, after that
// commit — for "once", "idempotent" and "read" tools alone and in one batch, with and without
// approval, on the file, PostgreSQL and Redis stores (a memory store dies with its process: its
// cancel case is in test/scenarios/tool-effects.test.ts). This process then resumes the session
// from the store and states what must have happened: not run, in doubt, run again, or done,
// counting executions in a log file outside both processes.
//
// Run it 10 times: `BATON_CRASH_REPEAT=10 npx vitest run test/integration/tool-effects-crash.test.ts`.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';

import {
  approve,
  type FunctionExecutionResult,
  reject,
  resolve,
  SessionBusyError,
  type ToolEffect,
} from '../../src/index.js';
import {
  type CrashCase,
  crashWorkflow,
  executions,
  type KillPoint,
  openStore,
  POSTGRES_URL,
  REDIS_URL,
  type StoreKind,
} from '../support/effects-crash-workflow.js';
import { bundledScript } from '../support/bundled-script.js';
import { dropStatement } from '../../src/checkpoint/postgres-sql.js';

// Each case mostly waits (a child's start, then its dead lease's expiry): twelve at a time rather
// than vitest's five keep the matrix's 120 cases near two minutes on the 2-core CI machine.
vi.setConfig({ maxConcurrency: 12 });

const WORKER = bundledScript('test/support/effects-crash-worker.ts');
const REPEAT = Number(process.env.BATON_CRASH_REPEAT ?? '1');
const RUN = randomBytes(4).toString('hex');
const TABLE = `baton_effects_${RUN}`;
const PREFIX = `baton-effects-${RUN}`;
const directories: string[] = [];

afterAll(async () => {
  for (const d of directories) await rm(d, { recursive: true, force: true });
  const admin = new pg.Pool({ connectionString: POSTGRES_URL });
  await admin.query(dropStatement(TABLE));
  await admin.end();
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
});

function child(c: CrashCase, kill: KillPoint, task: 'start' | 'approve') {
  return new Promise<{ signal: NodeJS.Signals | null; code: number | null; stderr: string }>(
    (done) => {
      const p = spawn(process.execPath, [WORKER, JSON.stringify({ case: c, kill, task })], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('close', (code, signal) => done({ code, signal, stderr }));
    },
  );
}

const SETS: readonly (readonly ToolEffect[])[] = [
  ['once'],
  ['idempotent'],
  ['read'],
  ['once', 'idempotent', 'read'],
];
const POINTS: readonly KillPoint[] = [
  'before-start',
  'after-start',
  'during',
  'after-execute',
  'after-result',
];
const STORES: readonly StoreKind[] = ['file', 'postgres', 'redis'];

const key = (effect: ToolEffect) => `${effect}:c_${effect}`;
const each = (effects: readonly ToolEffect[], n: (e: ToolEffect) => number) =>
  Object.fromEntries(effects.map((e) => [key(e), n(e)]).filter(([, v]) => v !== 0));

describe.concurrent.each(STORES)('tool effects across a SIGKILL: %s store', (store) => {
  for (let round = 0; round < REPEAT; round++) {
    for (const effects of SETS) {
      for (const approval of [false, true]) {
        for (const kill of POINTS) {
          const label = `${effects.join('+')}${approval ? ' with approval' : ''}, killed ${kill}`;
          it(`${label}${REPEAT > 1 ? ` (#${round + 1})` : ''}`, async () => {
            await crashCase(store, effects, approval, kill);
          }, 60_000);
        }
      }
    }
  }
});

async function crashCase(
  kind: StoreKind,
  effects: readonly ToolEffect[],
  approval: boolean,
  kill: KillPoint,
): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'baton-effects-crash-'));
  directories.push(directory);
  const c: CrashCase = {
    store: kind,
    directory,
    name: kind === 'redis' ? PREFIX : TABLE,
    session: `s-${randomBytes(6).toString('hex')}`,
    effects,
    approval,
  };
  const store = openStore(c);
  const session = crashWorkflow(c, store).session(c.session);
  const counts = async () =>
    executions(await readFile(join(directory, 'effects.log'), 'utf8').catch(() => ''));
  try {
    if (approval) {
      const paused = await session.run('Go');
      expect(paused.pendingRequest?.kind).toBe('approval');
    }
    const once = effects.includes('once');
    // Without approval, a batch of "read" calls only commits no start: those points never come
    // (a batch with an "idempotent" call commits one, so a resumed run keeps its call ids).
    const started = effects.some((e) => e !== 'read');
    const reached = approval || started || (kill !== 'before-start' && kill !== 'after-start');
    const crashed = await child(c, kill, approval ? 'approve' : 'start');
    expect([crashed.signal, crashed.stderr]).toEqual([reached ? 'SIGKILL' : null, '']);
    if (!reached) {
      // Not run twice, and no start step: the batch ran once and the answer was committed.
      expect(await counts()).toEqual(each(effects, () => 1));
      expect((await session.checkpoints()).map((p) => p.event)).not.toContain(
        'tool_calls_started:clerk',
      );
      return;
    }
    const ran = kill === 'during' || kill === 'after-execute' || kill === 'after-result';
    expect(await counts()).toEqual(each(effects, () => (ran ? 1 : 0)));
    const resumed = await afterLease(() => session.run());

    if (kill === 'after-result') {
      // Done: nothing runs again.
      expect([resumed.status, resumed.pendingRequest?.kind]).toEqual(['awaiting_input', 'input']);
      expect(await counts()).toEqual(each(effects, () => 1));
      return;
    }
    if (kill === 'before-start' && approval) {
      // The decision was never committed: the calls still await it, and nothing ran.
      expect(resumed.pendingRequest?.kind).toBe('approval');
      expect(await counts()).toEqual({});
      const done = await session.run(effects.map((e) => approve(`c_${e}`)));
      expect(done.pendingRequest?.kind).toBe('input');
      expect(await counts()).toEqual(each(effects, () => 1));
      return;
    }
    if (kill === 'before-start') {
      // The start was never committed: the turn is redone, and every call runs once.
      expect(resumed.pendingRequest?.kind).toBe('input');
      expect(await counts()).toEqual(each(effects, () => 1));
      return;
    }
    if (!once) {
      // Read and idempotent calls run again with the same call id; the turn finishes.
      expect(resumed.pendingRequest?.kind).toBe('input');
      expect(await counts()).toEqual(each(effects, () => (ran ? 2 : 1)));
      return;
    }
    // In doubt: the once call never runs again by itself; the others wait for the decision.
    expect(resumed.status).toBe('awaiting_input');
    expect(resumed.pendingRequest).toMatchObject({
      kind: 'in_doubt',
      agent: 'clerk',
      calls: [{ id: 'c_once', name: 'once_tool', arguments: '{"n":1}' }],
    });
    expect(resumed.messages.map((m) => m.type)).toEqual(['ToolInDoubtEvent']);
    expect(await counts()).toEqual(each(effects, () => (ran ? 1 : 0)));
    const steps = (await session.checkpoints()).length;
    const again = await session.run();
    expect([again.pendingRequest, again.messages, (await session.checkpoints()).length]).toEqual([
      resumed.pendingRequest,
      [],
      steps,
    ]);
    const decision =
      kill === 'after-start'
        ? approve('c_once')
        : kill === 'during'
          ? reject('c_once', 'checked by hand')
          : resolve('c_once', 'Refund R-1 issued.');
    const done = await session.run(decision);
    expect(done.pendingRequest?.kind).toBe('input');
    // The once call ran once in all: approved after a kill before it ran (after-start), or run
    // before the kill and then rejected or resolved by hand (during, after-execute).
    expect(await counts()).toEqual(each(effects, (e) => (e === 'once' ? 1 : ran ? 2 : 1)));
    const results = done.messages.flatMap((m) =>
      m.type === 'ToolCallExecutionEvent' ? [...m.content] : [],
    );
    expect(results.find((r) => r.callId === 'c_once')).toEqual(onceResult(kill));
  } finally {
    await store.close();
  }
}

/** `run()` once the dead child's lease has expired (within 5 s, API.md §7). */
async function afterLease<T>(run: () => Promise<T>): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof SessionBusyError) || tries > 100) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function onceResult(kill: KillPoint): FunctionExecutionResult {
  const base = { callId: 'c_once', name: 'once_tool' };
  if (kill === 'after-start') return { ...base, content: 'once done', isError: false };
  if (kill === 'during') {
    return {
      ...base,
      content:
        'Tool call "once_tool" may or may not have completed; it was not retried: checked by hand',
      isError: true,
    };
  }
  return { ...base, content: 'Refund R-1 issued.', isError: false };
}
