import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import {
  type AgentMessage,
  FileCheckpointStore,
  messageToText,
  SessionBusyError,
} from '../../src/index.js';
import {
  answerText,
  buildDesk,
  driveSession,
  escalates,
  FINAL_ANSWER,
  question,
  specialistFor,
  USER_TURNS,
} from '../support/crash-worker.js';
import { bundledScript } from '../support/bundled-script.js';

const WORKER = bundledScript('test/support/crash-worker.ts');
/** Independent sessions killed in parallel, so that waiting out dead leases overlaps. */
const CHAINS = 4;
const KILLS_PER_CHAIN = 6;
/** A session still blocked this long after a kill is hung, not slow. */
const HANG_DEADLINE_MS = 60_000;
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 2 ** 31);

/** mulberry32: reproducible "random" kill moments (re-run with CRASH_SEED=<seed>). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A message without its random parts (ids, times): what must match an uninterrupted run. */
function shape(m: AgentMessage): string {
  switch (m.type) {
    case 'ToolCallRequestEvent':
      return `${m.type}(${m.source}) ${m.content.map((c) => `${c.id}:${c.name}${c.arguments}`).join(' ')}`;
    case 'ToolCallExecutionEvent':
      return `${m.type}(${m.source}) ${m.content.map((r) => `${r.callId}:${r.name}=${r.content}${r.isError ? ' [error]' : ''}`).join(' ')}`;
    case 'HandoffMessage':
      return `${m.type}(${m.source}->${m.target}) ${m.content} context=${(m.context ?? []).map(messageToText).join('|')}`;
    default:
      return `${m.type}(${m.source}) ${messageToText(m)}${m.usage ? ` usage=${m.usage.promptTokens}/${m.usage.completionTokens}` : ''}`;
  }
}

/** The agent answers the script gives, in order. */
function expectedAnswers(): string[] {
  const answers: string[] = [];
  for (let k = 0; k < USER_TURNS; k++) {
    answers.push(answerText(escalates(k) ? 'tech' : specialistFor(k), k));
  }
  return [...answers, FINAL_ANSWER];
}

interface WorkerRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly lines: string[];
  readonly stderr: string;
  /** When the kill was sent (ms since epoch), if it was. */
  readonly killedAt: number | undefined;
  /** The last progress line before the kill. */
  readonly killedDuring: string | undefined;
  /** When the first progress line arrived. */
  readonly firstProgressAt: number | undefined;
}

/** Runs one worker; with `kill`, SIGKILLs it `delayMs` after its first `armOn` line. */
function runWorker(
  directory: string,
  sessionId: string,
  kill?: { armOn: 'ready' | 'progress'; delayMs: number },
): Promise<WorkerRun> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [WORKER, directory, sessionId], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let stderr = '';
    let buffer = '';
    let timer: NodeJS.Timeout | undefined;
    let killedAt: number | undefined;
    let killedDuring: string | undefined;
    let firstProgressAt: number | undefined;
    let lastProgress = '(before any progress)';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        if (line.startsWith('progress ')) {
          firstProgressAt ??= Date.now();
          lastProgress = line.slice('progress '.length);
        }
        const armed =
          kill !== undefined &&
          timer === undefined &&
          (line === kill.armOn || line.startsWith(`${kill.armOn} `));
        if (armed) {
          timer = setTimeout(() => {
            killedAt = Date.now();
            killedDuring = lastProgress;
            child.kill('SIGKILL');
          }, kill.delayMs);
        }
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        lines,
        stderr,
        killedAt: signal === 'SIGKILL' ? killedAt : undefined,
        killedDuring: signal === 'SIGKILL' ? killedDuring : undefined,
        firstProgressAt,
      });
    });
  });
}

interface ChainReport {
  readonly directory: string;
  /** The sessions the chain drove to the end (a new one when the last ended before its kills). */
  readonly sessions: string[];
  readonly kills: { session: string; during: string; step: number }[];
  workers: number;
  /** Per kill: ms from the kill until the next process made progress on the session. */
  readonly blockedMs: number[];
  /** The first `info()` status a process saw on a session that a killed process had run. */
  readonly firstStatus: string[];
}

/**
 * Kills workers at random moments until `KILLS_PER_CHAIN` kills, each time resuming the session in
 * a new process; lets the last process finish the session (and starts another session when one
 * ended before the chain had its kills).
 */
async function killChain(
  chain: number,
  directory: string,
  random: () => number,
): Promise<ChainReport> {
  const report: ChainReport = {
    directory,
    sessions: [`crash-${chain}-0`],
    kills: [],
    workers: 0,
    blockedMs: [],
    firstStatus: [],
  };
  let lastKill: number | undefined;
  for (;;) {
    const sessionId = report.sessions.at(-1) as string;
    const killing = report.kills.length < KILLS_PER_CHAIN;
    // Mostly mid-run (after a model call or tool started); now and then while the new process is
    // still loading, catching up or waiting for the dead process's lease.
    const plan = killing
      ? random() < 0.2
        ? { armOn: 'ready' as const, delayMs: Math.floor(random() * 400) }
        : { armOn: 'progress' as const, delayMs: Math.floor(random() * 500) }
      : undefined;
    const run = await runWorker(directory, sessionId, plan);
    report.workers++;
    const status = run.lines.find((l) => l.startsWith('status '));
    if (lastKill !== undefined && status !== undefined) report.firstStatus.push(status);
    if (lastKill !== undefined && run.firstProgressAt !== undefined) {
      report.blockedMs.push(run.firstProgressAt - lastKill);
    }
    if (run.signal === 'SIGKILL') {
      const steps = await new FileCheckpointStore(directory).read(sessionId, { from: 'start' });
      report.kills.push({
        session: sessionId,
        during: run.killedDuring ?? '?',
        step: steps.at(-1)?.step ?? 0,
      });
      lastKill = run.killedAt;
      continue;
    }
    if (run.code !== 0 || !run.lines.some((l) => l.startsWith('done '))) {
      throw new Error(
        `worker ${report.workers} of ${sessionId} exited with ${run.code} without finishing (seed ${SEED}):\n` +
          `${run.stderr}\n${run.lines.slice(-10).join('\n')}`,
      );
    }
    lastKill = undefined;
    if (report.kills.length >= KILLS_PER_CHAIN) return report;
    report.sessions.push(`crash-${chain}-${report.sessions.length}`);
  }
}

const directories: string[] = [];
async function tempDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'baton-crash-'));
  directories.push(directory);
  return directory;
}

afterAll(async () => {
  await Promise.all(directories.map((d) => rm(d, { recursive: true, force: true })));
});

describe('crash and resume with FileCheckpointStore', () => {
  it(`survives ${CHAINS * KILLS_PER_CHAIN} SIGKILLs at random moments with no lost or doubled message`, async (ctx) => {
    const random = prng(SEED);
    const seeds = Array.from({ length: CHAINS }, () => Math.floor(random() * 2 ** 31));
    const reports = await Promise.all(
      seeds.map(async (seed, chain) => killChain(chain, await tempDirectory(), prng(seed))),
    );

    const kills = reports.flatMap((r) => r.kills);
    const sessions = reports.flatMap((r) =>
      r.sessions.map((id) => ({ id, directory: r.directory })),
    );
    // The seed and where the kills fell: shown with a failure and by --reporter=verbose.
    await ctx.annotate(
      `crash test (CRASH_SEED=${SEED}): ${kills.length} kills, ${reports.reduce((n, r) => n + r.workers, 0)} processes, ${sessions.length} sessions; ` +
        `killed at steps ${kills.map((k) => k.step).join(',')}; during ${summarise(kills.map((k) => k.during.split(':')[0] ?? ''))}; ` +
        `blocked after a kill (ms) ${reports.flatMap((r) => r.blockedMs).join(',')}; ` +
        `first status after a kill ${summarise(reports.flatMap((r) => r.firstStatus.map((s) => s.split(' ')[1] ?? '')))}`,
    );
    expect(kills.length, `seed ${SEED}`).toBeGreaterThanOrEqual(20);

    // What an uninterrupted process running the same script produces (run now, in a process of
    // its own, so that it runs the same code as the workers did).
    const referenceDirectory = await tempDirectory();
    const referenceRun = await runWorker(referenceDirectory, 'reference');
    expect(referenceRun.code, referenceRun.stderr).toBe(0);
    const reference = buildDesk(new FileCheckpointStore(referenceDirectory)).session('reference');
    const referenceInfo = await reference.info();
    const expected = (await reference.messages()).map(shape);
    expect(referenceInfo.status).toBe('terminated');
    expect(referenceInfo.step).toBeGreaterThanOrEqual(40);

    for (const { id, directory } of sessions) {
      const context = `${id}, seed ${SEED}`;
      const session = buildDesk(new FileCheckpointStore(directory)).session(id);
      const thread = await session.messages();

      // The same thread as the uninterrupted run, message for message.
      expect(thread.map(shape), context).toEqual(expected);
      // No message twice, by id or (for questions and answers) by content.
      expect(new Set(thread.map((m) => m.id)).size, context).toBe(thread.length);
      const questions = thread.filter((m) => m.type === 'TextMessage' && m.source === 'user');
      expect(
        questions.map((m) => messageToText(m)),
        context,
      ).toEqual(Array.from({ length: USER_TURNS + 1 }, (_, k) => question(k)));
      const answers = thread.filter((m) => m.type === 'TextMessage' && m.source !== 'user');
      expect(
        answers.map((m) => messageToText(m)),
        context,
      ).toEqual(expectedAnswers());
      const pauses = thread.filter((m) => m.type === 'UserInputRequestedEvent');
      expect(new Set(pauses.map((m) => m.requestId)).size, context).toBe(pauses.length);

      // Every tool call has exactly one result, and every result a call.
      const calls = thread.flatMap((m) => (m.type === 'ToolCallRequestEvent' ? m.content : []));
      const results = thread.flatMap((m) => (m.type === 'ToolCallExecutionEvent' ? m.content : []));
      expect(new Set(calls.map((c) => c.id)).size, context).toBe(calls.length);
      expect(results.map((r) => r.callId).sort(), context).toEqual(calls.map((c) => c.id).sort());
      expect(
        results.every((r) => !r.isError),
        context,
      ).toBe(true);

      const info = await session.info();
      expect(info.status, context).toBe('terminated');
      // Steps are contiguous and each agent answer was committed once.
      const steps = await session.checkpoints();
      expect(
        steps.map((s) => s.step),
        context,
      ).toEqual(Array.from({ length: info.step }, (_, i) => i + 1));
      const answered = steps.filter((s) => s.event.startsWith('agent_response:')).length;
      expect(answered, context).toBe(
        thread.filter((m) => m.type === 'TextMessage' && m.source !== 'user').length +
          thread.filter((m) => m.type === 'HandoffMessage').length,
      );
      // No lock file outlives the process that finished the session.
      const files = await readdir(directory);
      expect(
        files.filter((f) => f.endsWith('.lock')),
        context,
      ).toEqual([]);
    }

    // How long a dead process blocked the next one is a measurement (logged above), not an
    // assertion: on a loaded machine process start-up alone varies by seconds. That every resume
    // above finished is the behaviour; the hang detector is the test's own timeout.
  }, 120_000);

  it(
    'after a kill, info() reports the last committed step, not "running" (API.md §7)',
    async () => {
      const directory = await tempDirectory();
      const run = await runWorker(directory, 'crash-info', { armOn: 'progress', delayMs: 120 });
      expect(run.signal).toBe('SIGKILL');
      const store = new FileCheckpointStore(directory);
      const committed = (await store.read('crash-info', { from: 'start' })).at(-1)?.step ?? 0;

      const session = buildDesk(store).session('crash-info');
      const info = await session.info();
      expect(info.step).toBe(committed);
      // "After such a death, info() never reports `running` for a session that no live process is
      // running: it reports `idle` with the thread as last committed".
      expect.soft(info.status).not.toBe('running');

      // "A process that dies holds nothing that blocks the next one for more than a few seconds."
      // The behaviour asserted: the session becomes runnable. How soon is not asserted (a loaded
      // machine stretches it); HANG_DEADLINE_MS only turns a session blocked for good into a
      // failure that says so instead of a test timeout.
      const started = Date.now();
      for (;;) {
        try {
          // With no task: finishes the interrupted turn, or returns at once when awaiting input.
          await session.run();
          break;
        } catch (error) {
          if (!(error instanceof SessionBusyError)) throw error;
          if (Date.now() - started > HANG_DEADLINE_MS) {
            throw new Error(
              `session still busy ${HANG_DEADLINE_MS} ms after its runner was killed`,
              {
                cause: error,
              },
            );
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      expect((await driveSession(session)).status).toBe('terminated');
    },
    HANG_DEADLINE_MS + 30_000,
  );
});

function summarise(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k}×${n}`).join(' ');
}
