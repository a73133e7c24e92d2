// Independent suite for API.md §16 `baton worker <module> --queue <postgres://… | redis://…>
// [--concurrency 10]`, run as a real process (bin/baton.js). Written from API.md alone. Readings
// where the page is open:
// - the module exports `workflow` (built with its own shared store, here from the environment)
//   as for `baton run`/`baton serve`, and `createWorkflow({ checkpointStore })` too;
// - the worker's queue is the default `baton.<workflow name>`, which the test's server dispatcher
//   also uses;
// - on SIGTERM the running turn finishes and the process exits by itself: code 0, or 143
//   (128 + SIGTERM, the shell convention for a process that stopped on SIGTERM).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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
  type Kind,
  request,
  server,
  unique,
  until,
} from './support.js';

// Queues, leases and retries take seconds on real servers: generous waits, no timed assertion.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

const MODULE = 'test/independent/workers/fixtures/cli-desk.ts';
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

const textOf = (messages: readonly AgentMessage[], source: string) =>
  messages
    .filter((m) => m.type === 'TextMessage' && m.source === source)
    .map((m) => (m as { content: string }).content);

const lines = (path: string) =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
    : [];

describe.each(['pg-boss', 'bullmq'] as const)(
  'baton worker --queue (%s) (API.md §16)',
  (kind: Kind) => {
    it('runs the queued runs of its workflow and, on SIGTERM, finishes the running turn and exits', async () => {
      const b = new Backend(kind);
      backends.push(b);
      const name = `wkcli-${unique()}`;
      const dir = await mkdtemp(join(tmpdir(), 'baton-wk-cli-'));
      dirs.push(dir);
      const log = join(dir, 'billing.log');
      const release = join(dir, 'release');
      const front = desk({ store: b.store(), label: 'server', name });
      const handler = server(front.workflow, { authenticate, dispatcher: b.dispatcher(null) });

      const child = spawn(
        process.execPath,
        ['bin/baton.js', 'worker', MODULE, '--queue', b.queueUrl, '--concurrency', '2'],
        {
          env: {
            ...process.env,
            NO_COLOR: '1',
            BATON_WK_KIND: kind,
            BATON_WK_PLACE: kind === 'pg-boss' ? b.table : b.keyPrefix,
            BATON_WK_NAME: name,
            BATON_WK_LOG: log,
            BATON_WK_RELEASE: release,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      children.push(child);
      let output = '';
      child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.once('exit', (code, signal) => resolve([code, signal])),
      );

      expect(
        (await answer(handler.fetch(request('POST', '/sessions', { id: 'cli' })))).status,
      ).toBe(201);
      const first = await answer(
        handler.fetch(request('POST', '/sessions/cli/runs', { input: 'hello' })),
      );
      expect([first.status, output]).toEqual([200, output]);
      expect(textOf((first.json as TaskResult).messages, 'billing')).toEqual(['cli: hello']);
      expect(child.exitCode).toBeNull();

      const second = answer(
        handler.fetch(request('POST', '/sessions/cli/runs', { input: 'slow bye' })),
      );
      await until(() => lines(log).includes('billing slow bye'));
      child.kill('SIGTERM');
      writeFileSync(release, '');
      const [code, signal] = await exited;
      // It stops by itself (exit code 0, or 143 = 128 + SIGTERM by the usual convention), not
      // killed by the signal.
      expect([
        [0, null, output],
        [143, null, output],
      ]).toContainEqual([code, signal, output]);
      const done = await second;
      expect(done.status).toBe(200);
      expect(textOf((done.json as TaskResult).messages, 'billing')).toEqual(['cli: slow bye']);
      expect(lines(log)).toEqual(['billing hello', 'billing slow bye']);
      const thread = await front.workflow.session('cli').messages();
      expect(textOf(thread, 'billing')).toEqual(['cli: hello', 'cli: slow bye']);
      expect(front.counts).toEqual({ triage: 0, billing: 0 });
    });
  },
);
