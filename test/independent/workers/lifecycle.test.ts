// Independent suite for API.md §16: a worker's `close()` (graceful: the running turn finishes,
// the lease is released, another worker resumes the run), a turn it could not finish within
// `shutdownTimeoutMs` (resumed by another worker, never committed late), and a worker SIGKILLed
// mid-run in a child process (another worker resumes from the last committed step; nothing lost
// or repeated; a client streaming from another server instance sees the run go on). Written from
// API.md alone. Readings where the page is open:
// - "lets running turns finish": the turn that runs when `close()` is called finishes and is
//   committed by the closing worker, which starts no further turn of that run; the rest of the run
//   is resumed by another worker, and the POST that carried the input answers with the run's end;
// - `shutdownTimeoutMs` is an option of `startWorker`;
// - the stream (GET /sessions/:id/stream, opened while the run goes on) replays the run from its
//   start and ends with the `result` event at the pause.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

import type { AgentMessage, TaskResult } from '../../../src/index.js';
import {
  answer,
  authenticate,
  Backend,
  closeAll,
  desk,
  Gate,
  type Kind,
  request,
  server,
  sseEvents,
  type Ticks,
  ticker,
  unique,
  until,
  worker,
} from './support.js';
import { bundledScript } from '../../support/bundled-script.js';

// Queues, leases and retries take seconds on real servers: generous waits, no timed assertion.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

const CHILD = bundledScript('test/independent/workers/fixtures/worker-child.ts');
const backends: Backend[] = [];
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  }
  await closeAll();
});
afterAll(async () => {
  for (const b of backends) await b.drop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** HandoffBuilder's default autonomous-mode prompt (API.md §6). */
const AUTONOMOUS = 'User did not respond. Continue assisting autonomously.';

const textOf = (messages: readonly AgentMessage[], source: string) =>
  messages
    .filter((m) => m.type === 'TextMessage' && m.source === source)
    .map((m) => (m as { content: string }).content);

/** Waits at `gate` until it opens or the model call is aborted (then throws, as a real client does). */
async function hang(gate: Gate, signal: AbortSignal | undefined): Promise<void> {
  const abortedCall = new Promise<void>((_resolve, reject) => {
    if (signal?.aborted) reject(new Error('aborted'));
    signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
  });
  await Promise.race([gate.pass(), abortedCall]);
}

const lines = (path: string) =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
    : [];

describe.each(['pg-boss', 'bullmq'] as const)(
  'worker lifecycle on %s (API.md §16)',
  (kind: Kind) => {
    const backend = () => {
      const b = new Backend(kind);
      backends.push(b);
      return b;
    };

    /** A runs the ticker; close() is called while tick 3 runs, then tick 3 is let go. */
    async function closeDuringTick3() {
      const b = backend();
      const name = `wk-${unique()}`;
      const shared: Ticks = { n: 0, stopAt: 6 };
      const gate = new Gate();
      const front = ticker({ store: b.store(), label: 'server', name, shared });
      const handler = server(front.workflow, { authenticate, dispatcher: b.dispatcher() });
      const a = ticker({
        store: b.store(),
        label: 'A',
        name,
        shared,
        hold: async (n) => {
          if (n === 3) await gate.pass();
        },
      });
      const workerA = await worker(a.workflow, { dispatcher: b.dispatcher() });
      expect((await answer(handler.fetch(request('POST', '/sessions', { id: 'gc' })))).status).toBe(
        201,
      );
      const posted = answer(handler.fetch(request('POST', '/sessions/gc/runs', { input: 'loop' })));
      await gate.started;
      const closing = workerA.close();
      gate.open();
      await closing;
      return { b, name, shared, front, a, posted };
    }

    it('close(): the running turn finishes, the lease is released, another worker resumes the run; nothing lost or repeated', async () => {
      const { b, name, shared, front, a, posted } = await closeDuringTick3();
      // The turn that ran when close() was called finished and was committed by A, which
      // started no further turn.
      expect(a.calls.billing).toBe(3);
      const committed = textOf(await front.workflow.session('gc').messages(), 'billing');
      expect(committed).toEqual(['A tick 1', 'A tick 2', 'A tick 3']);

      const bee = ticker({ store: b.store(), label: 'B', name, shared });
      await worker(bee.workflow, { dispatcher: b.dispatcher() });
      const done = await posted;
      expect(done.status).toBe(200);
      const result = done.json as TaskResult;
      expect(result.status).toBe('terminated');
      expect(result.stopReason).toBe("Text 'DONE' mentioned");
      const thread = await front.workflow.session('gc').messages();
      // Every tick once, in order: A's up to where it stopped, then B's.
      expect(textOf(thread, 'billing')).toEqual([
        'A tick 1',
        'A tick 2',
        'A tick 3',
        'B tick 4',
        'B tick 5',
        'B DONE 6',
      ]);
      expect(textOf(thread, 'user').filter((t) => t !== AUTONOMOUS)).toEqual(['loop']);
      expect(a.calls.billing).toBe(3);
      expect(bee.calls.billing).toBe(3);
      expect(shared.n).toBe(6);
      expect(front.calls.billing).toBe(0);
    });

    // Was a DISCREPANCY with API.md §16, fixed (branch close-turn): A went on with turns 4-6 of
    // the running run after close() was called instead of leaving them to another worker.
    it('close() starts no further turn of the running run after the running one finishes', async () => {
      const { a, shared } = await closeDuringTick3();
      expect(a.calls.billing).toBe(3);
      expect(shared.n).toBe(3);
    });

    // Was a DISCREPANCY with API.md §16, fixed (branch worker-gaps): after `shutdownTimeoutMs`
    // the closed worker's unfinished turn was neither aborted nor its lease released.
    it('close() after shutdownTimeoutMs: the unfinished turn is redone by another worker and never committed late', async () => {
      const b = backend();
      const name = `wk-${unique()}`;
      const shared: Ticks = { n: 0, stopAt: 5 };
      const late = new Gate();
      const front = ticker({ store: b.store(), label: 'server', name, shared });
      const handler = server(front.workflow, { authenticate, dispatcher: b.dispatcher() });
      const a = ticker({
        store: b.store(),
        label: 'A',
        name,
        shared,
        hold: async (n, signal) => {
          if (n === 2) await hang(late, signal);
        },
      });
      const options = { dispatcher: b.dispatcher(), shutdownTimeoutMs: 300 };
      const workerA = await worker(a.workflow, options);
      expect((await answer(handler.fetch(request('POST', '/sessions', { id: 'gt' })))).status).toBe(
        201,
      );

      const posted = answer(handler.fetch(request('POST', '/sessions/gt/runs', { input: 'loop' })));
      await late.started;
      await workerA.close();

      const bee = ticker({ store: b.store(), label: 'B', name, shared });
      await worker(bee.workflow, { dispatcher: b.dispatcher() });
      const done = await posted;
      expect(done.status).toBe(200);
      expect((done.json as TaskResult).stopReason).toBe("Text 'DONE' mentioned");
      const session = front.workflow.session('gt');
      const expected = ['A tick 1', 'B tick 3', 'B tick 4', 'B DONE 5'];
      expect(textOf(await session.messages(), 'billing')).toEqual(expected);
      const steps = (await session.checkpoints()).length;

      // A's hung call now returns: nothing of it may be committed.
      late.open();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(textOf(await session.messages(), 'billing')).toEqual(expected);
      expect((await session.checkpoints()).length).toBe(steps);
    }, 30_000);

    /** A child-process worker is SIGKILLed while billing's model call runs; B then resumes. */
    async function killMidRun() {
      const b = backend();
      const name = `wk-${unique()}`;
      const dir = await mkdtemp(join(tmpdir(), 'baton-wk-kill-'));
      dirs.push(dir);
      const log = join(dir, 'child.log');
      const front = desk({ store: b.store(), label: 'server', name });
      const handler = server(front.workflow, { authenticate, dispatcher: b.dispatcher() });
      const other = desk({ store: b.store(), label: 'server2', name });
      const otherHandler = server(other.workflow, { authenticate, dispatcher: b.dispatcher() });

      const place = kind === 'pg-boss' ? b.table : b.keyPrefix;
      const child = spawn(process.execPath, [CHILD, kind, place, b.queue, name, log], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      children.push(child);
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.once('exit', (_code, signal) => resolve(signal)),
      );
      await until(() => lines(log).includes('ready') || child.exitCode !== null);
      expect([lines(log), stderr]).toEqual([['ready'], '']);

      expect(
        (await answer(handler.fetch(request('POST', '/sessions', { id: 'kill' })))).status,
      ).toBe(201);
      const posted = answer(
        handler.fetch(request('POST', '/sessions/kill/runs', { input: 'hello' })),
      );
      await until(() => lines(log).includes('billing'));
      expect(lines(log)).toEqual(['ready', 'triage', 'billing']);

      const response = await otherHandler.fetch(
        request('GET', '/sessions/kill/stream', undefined, { accept: 'text/event-stream' }),
      );
      expect(response.status).toBe(200);
      const events: { event?: string | undefined; data: string }[] = [];
      const reading = (async () => {
        for await (const event of sseEvents(response.body!)) events.push(event);
      })();

      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      const bee = desk({ store: b.store(), label: 'B', name });
      await worker(bee.workflow, { dispatcher: b.dispatcher() });
      const done = await posted;
      expect(done.status).toBe(200);
      const result = done.json as TaskResult;
      expect(result.status).toBe('awaiting_input');
      expect(textOf(result.messages, 'billing')).toEqual(['B: hello']);

      const thread = await front.workflow.session('kill').messages();
      expect(thread.map((m) => `${m.type}:${m.source}`)).toEqual([
        'TextMessage:user',
        'ToolCallRequestEvent:triage',
        'ToolCallExecutionEvent:triage',
        'HandoffMessage:triage',
        'TextMessage:billing',
        'UserInputRequestedEvent:billing',
      ]);
      expect(textOf(thread, 'billing')).toEqual(['B: hello']);
      // The dead worker's committed step was kept, not redone: triage was asked once, by the child.
      expect(lines(log)).toEqual(['ready', 'triage', 'billing']);
      expect(bee.counts).toEqual({ triage: 0, billing: 1 });
      expect(front.counts.billing + other.counts.billing).toBe(0);

      await reading;
      return { events, thread };
    }

    it('a worker SIGKILLed mid-run: another worker resumes from the last committed step; nothing lost or repeated', async () => {
      const { thread } = await killMidRun();
      expect(thread).toHaveLength(6);
    });

    // Was a DISCREPANCY with API.md §16, fixed (branch stream-follow): the stream ended after the
    // committed events when the killed worker's lease expired, before the other worker resumed.
    it('a client streaming from another server instance sees the resumed run go on to its pause', async () => {
      const { events, thread } = await killMidRun();
      expect(events.at(-1)?.event).toBe('result');
      expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ status: 'awaiting_input' });
      const streamed = events
        .filter((e) => e.event !== 'result')
        .map((e) => JSON.parse(e.data) as AgentMessage);
      expect(streamed.map((m) => m.id)).toEqual(thread.map((m) => m.id));
    });
  },
);
