// Independent suite for API.md §19's commands, run as real processes (bin/baton.js, and vitest
// for the generated test): `baton test record` and `baton eval routing`. Written from API.md
// alone. Readings where the page is open:
// - the recording file is the output of `session.record()` for that session (no redaction);
// - the generated test, run by vitest, fails with a message that carries the divergence's
//   `what`, `expected` and `actual`;
// - `eval routing`: an array input sends its turns in order until a specialist answers; `actual`
//   is that specialist (null when none answered); `calls` and `tokens` count every model call of
//   the case; `cases` keep the file's order; stdout with `--json` is the JSON document alone.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, describe, expect, it } from 'vitest';

import { FileCheckpointStore } from '../../../src/index.js';
import { createWorkflow as transferDesk } from './fixtures/transfer-desk.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TRANSFER = 'test/independent/recording/fixtures/transfer-desk.ts';
const ROUTING = 'test/independent/recording/fixtures/routing-desk.ts';
const cleanup: string[] = [];
afterAll(async () => {
  for (const path of cleanup) await rm(path, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (no time limit but the test's). */
function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Ran> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    // A vitest started from a vitest must not take this one's worker settings.
    if (value !== undefined && !key.startsWith('VITEST') && key !== 'NODE_OPTIONS') {
      env[key] = value;
    }
  }
  const child = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0', OPENAI_API_KEY: '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

const baton = (args: string[], options?: { cwd?: string; env?: Record<string, string> }) =>
  run(process.execPath, [join(ROOT, 'bin/baton.js'), ...args], options);

async function recordedSession(id: string) {
  const store = await mkdtemp(join(tmpdir(), 'baton-record-store-'));
  cleanup.push(store);
  const workflow = transferDesk({ checkpointStore: new FileCheckpointStore(store) });
  const session = workflow.session(id);
  const result = await session.run('my bill is wrong');
  expect(result.stopReason).toBe("'billing' answered");
  return { store, session };
}

describe('baton test record (API.md §19)', () => {
  it('writes the test and the recording beside it; the test passes, and fails with the divergence after a change', async () => {
    const { store, session } = await recordedSession('rec-1');
    // Inside the repository, so that vitest (run from the root) takes the generated test.
    const outDir = join(ROOT, 'test/independent/recording', `.generated-${process.pid}`);
    cleanup.push(outDir);
    await mkdir(outDir, { recursive: true });
    const out = join(outDir, 'rec-1.test.ts');
    const made = await baton([
      'test',
      'record',
      TRANSFER,
      '--session',
      'rec-1',
      '--store',
      store,
      '--out',
      out,
    ]);
    expect(made.code, made.stderr).toBe(0);
    expect(existsSync(out)).toBe(true);
    const recordingFile = join(outDir, 'rec-1.recording.json');
    expect(existsSync(recordingFile)).toBe(true);
    const recording = JSON.parse(await readFile(recordingFile, 'utf8')) as unknown;
    expect(recording).toEqual(JSON.parse(JSON.stringify(await session.record())));
    const source = await readFile(out, 'utf8');
    // The module by its relative path from the test.
    expect(relative(outDir, join(ROOT, TRANSFER))).toBe('../fixtures/transfer-desk.ts');
    expect(source).toContain('../fixtures/transfer-desk');
    expect(source).not.toContain(ROOT);

    const vitest = (env?: Record<string, string>) =>
      run(
        process.execPath,
        [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', relative(ROOT, out)],
        {
          env: env ?? {},
        },
      );
    const passing = await vitest();
    expect(passing.stdout + passing.stderr).toMatch(/1 passed/);
    expect(passing.code).toBe(0);

    const failing = await vitest({ RECORDING_DESK_TARGET: 'tech' });
    expect(failing.code).toBe(1);
    const output = failing.stdout + failing.stderr;
    expect(output).toMatch(/1 failed/);
    expect(output).toContain('handoff');
    expect(output).toContain('billing');
    expect(output).toContain('tech');
  }, 240_000);

  it('defaults --out to test/recorded/<id>.test.ts under the current directory', async () => {
    const { store } = await recordedSession('rec-2');
    const cwd = await mkdtemp(join(tmpdir(), 'baton-record-cwd-'));
    cleanup.push(cwd);
    const made = await baton(
      ['test', 'record', join(ROOT, TRANSFER), '--session', 'rec-2', '--store', store],
      { cwd },
    );
    expect(made.code).toBe(0);
    expect(existsSync(join(cwd, 'test/recorded/rec-2.test.ts'))).toBe(true);
    expect(existsSync(join(cwd, 'test/recorded/rec-2.recording.json'))).toBe(true);
  }, 120_000);

  it('an unknown session is an error exit naming it, and writes nothing', async () => {
    const store = await mkdtemp(join(tmpdir(), 'baton-record-empty-'));
    cleanup.push(store);
    const outDir = await mkdtemp(join(tmpdir(), 'baton-record-out-'));
    cleanup.push(outDir);
    const out = join(outDir, 'nope.test.ts');
    const made = await baton([
      'test',
      'record',
      TRANSFER,
      '--session',
      'no-such-session',
      '--store',
      store,
      '--out',
      out,
    ]);
    expect(made.code).not.toBe(0);
    expect(made.stderr).toContain('no-such-session');
    expect(existsSync(out)).toBe(false);
  }, 120_000);
});

interface EvalJson {
  accuracy: number;
  confusion: Record<string, Record<string, number>>;
  cases: {
    input: string | string[];
    expect: string;
    actual: string | null;
    calls: number;
    tokens: { prompt: number; completion: number };
  }[];
}

async function casesFile(lines: unknown[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'baton-eval-'));
  cleanup.push(dir);
  const file = join(dir, 'cases.jsonl');
  await writeFile(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

const MAIN_CASES = [
  { input: 'my invoice is wrong', expect: 'billing' },
  { input: 'the app crashes', expect: 'tech' },
  { input: 'I want a refund', expect: 'refunds' },
  { input: 'refund my invoice', expect: 'billing' },
  { input: 'crash after my refund', expect: 'refunds' },
];

describe('baton eval routing (API.md §19)', () => {
  it('--json: accuracy, confusion matrix and per-case calls and tokens of a classifier with known mistakes', async () => {
    const file = await casesFile(MAIN_CASES);
    const ran = await baton(['eval', 'routing', ROUTING, file, '--json', '--concurrency', '3']);
    expect(ran.code).toBe(0);
    const report = JSON.parse(ran.stdout) as EvalJson;
    const specialist = { calls: 2, tokens: { prompt: 30, completion: 7 } };
    expect(report).toEqual({
      accuracy: 0.6,
      confusion: {
        billing: { billing: 2 },
        tech: { tech: 1 },
        refunds: { billing: 1, tech: 1 },
      },
      cases: [
        { input: 'my invoice is wrong', expect: 'billing', actual: 'billing', ...specialist },
        { input: 'the app crashes', expect: 'tech', actual: 'tech', ...specialist },
        { input: 'I want a refund', expect: 'refunds', actual: 'billing', ...specialist },
        { input: 'refund my invoice', expect: 'billing', actual: 'billing', ...specialist },
        { input: 'crash after my refund', expect: 'refunds', actual: 'tech', ...specialist },
      ],
    });
  }, 120_000);

  it('actual is null when no specialist answered; an array input is one user turn per element', async () => {
    const file = await casesFile([
      { input: 'hello there', expect: 'tech' },
      { input: ['hi', 'my invoice'], expect: 'billing' },
    ]);
    const ran = await baton(['eval', 'routing', ROUTING, file, '--json']);
    expect(ran.code).toBe(0);
    const report = JSON.parse(ran.stdout) as EvalJson;
    expect(report.accuracy).toBe(0.5);
    expect(report.cases).toEqual([
      {
        input: 'hello there',
        expect: 'tech',
        actual: null,
        calls: 1,
        tokens: { prompt: 10, completion: 4 },
      },
      {
        input: ['hi', 'my invoice'],
        expect: 'billing',
        actual: 'billing',
        calls: 3,
        tokens: { prompt: 40, completion: 11 },
      },
    ]);
    expect(report.confusion.billing).toEqual({ billing: 1 });
    expect(Object.values(report.confusion.tech!)).toEqual([1]);
  }, 120_000);

  it('--min-accuracy: exit code 1 below it, 0 at or above it; the text report names accuracy and agents', async () => {
    const file = await casesFile(MAIN_CASES);
    const below = await baton(['eval', 'routing', ROUTING, file, '--min-accuracy', '0.7']);
    expect(below.code).toBe(1);
    const at = await baton(['eval', 'routing', ROUTING, file, '--min-accuracy', '0.6']);
    expect(at.code).toBe(0);
    expect(at.stdout).toMatch(/\b0\.60*\b|\b60(\.0+)?\s?%/);
    for (const name of ['billing', 'tech', 'refunds']) expect(at.stdout).toContain(name);
    const jsonBelow = await baton([
      'eval',
      'routing',
      ROUTING,
      file,
      '--json',
      '--min-accuracy',
      '0.9',
    ]);
    expect(jsonBelow.code).toBe(1);
    expect((JSON.parse(jsonBelow.stdout) as EvalJson).accuracy).toBe(0.6);
  }, 180_000);
});
