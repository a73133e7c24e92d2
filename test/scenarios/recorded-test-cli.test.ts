import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { FileCheckpointStore } from '../../src/index.js';
import { desk, refundConversation } from '../support/recorded-desk.js';

// API.md §19: `baton test record` writes a Vitest test and the recording beside it; the test passes
// under this project's Vitest and fails with the divergence once the workflow changes. The CLI and
// Vitest run as child processes.

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/tsx/dist/esm/index.mjs');
const vitest = join(root, 'node_modules/vitest/vitest.mjs');

function child(args: string[]) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    const process_ = spawn(process.execPath, args, {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    process_.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    process_.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    process_.stdin.end();
    process_.on('close', (status) => done({ status, stdout, stderr }));
  });
}

const baton = (...args: string[]) =>
  child(['--import', tsx, join(root, 'src/cli/main.ts'), ...args]);

/** A workflow module in the scratch directory, over the test desk, with `lookup` as given. */
const moduleText = (
  withoutLookup: boolean,
) => `import type { CheckpointStore } from '../../../src/index.js';
import { desk } from '../../support/recorded-desk.js';

export function createWorkflow(options: { checkpointStore: CheckpointStore }) {
  return desk({ store: options.checkpointStore, withoutLookup: ${withoutLookup} });
}
`;

// Under test/ so that this project's Vitest picks the generated test up; removed afterwards.
const scratch = join(root, 'test', 'recorded', `scratch-${process.pid}-${Date.now()}`);
const store = mkdtempSync(join(tmpdir(), 'baton-record-cli-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(store, { recursive: true, force: true });
});

describe('baton test record', () => {
  it('writes a test that passes, and that fails with the divergence when the workflow changes', async () => {
    mkdirSync(scratch, { recursive: true });
    const module = join(scratch, 'desk-module.ts');
    writeFileSync(module, moduleText(false));
    await refundConversation(desk({ store: new FileCheckpointStore(store) }), 'refund-1');
    const relativeModule = module.slice(root.length + 1);
    const out = join(relativeModule, '..', 'refund.test.ts');
    const made = await baton(
      'test',
      'record',
      relativeModule,
      '--store',
      store,
      '--session',
      'refund-1',
      '--out',
      out,
    );
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);
    const recordingFile = join(relativeModule, '..', 'refund.recording.json');
    expect(made.stdout).toBe(
      `Wrote ${out} and ${recordingFile}: session "refund-1" of desk.\nRun it: npx vitest run ${out}\n`,
    );
    const recording = JSON.parse(readFileSync(join(root, recordingFile), 'utf8'));
    expect(recording.turns.map((t: { agent: string }) => t.agent)).toEqual([
      'triage',
      'triage',
      'billing',
      'billing',
    ]);
    const test = readFileSync(join(root, out), 'utf8');
    expect(test).toContain(
      "import { MemoryCheckpointStore, replay } from '../../../src/index.js';",
    );
    expect(test).toContain("import { createWorkflow } from './desk-module.js';");

    const passing = await child([vitest, 'run', out]);
    expect(passing.stdout).toContain('1 passed');
    expect(passing.status).toBe(0);

    writeFileSync(module, moduleText(true));
    const failing = await child([vitest, 'run', out]);
    expect(failing.status).toBe(1);
    expect(failing.stdout + failing.stderr).toContain(
      'AssertionError: Replay of session "refund-1" diverged at turn 3 (billing): tool_call was "lookup_invoice" when recorded, null now.',
    );
  }, 120_000);

  it('refuses a missing session id, an unknown subcommand and an empty session', async () => {
    const noSession = await baton('test', 'record', 'samples/devtools-desk.ts');
    expect(noSession.status).toBe(2);
    expect(noSession.stderr).toBe(
      'baton test record: which session? Give --session <id> (baton run and baton dev print ids).\n',
    );
    const unknown = await baton('test', 'replay');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toBe(
      'baton test: unknown subcommand "replay"; the one there is: record. Run "baton test --help".\n',
    );
    const empty = await baton('test', 'record', 'samples/devtools-desk.ts', '--session', 'none');
    expect(empty.status).toBe(2);
    expect(empty.stderr).toBe(
      'baton test record: session "none" of samples/devtools-desk.ts has no messages. Give the store it is kept in with --store <dir>, or the session id baton run printed.\n',
    );
  }, 60_000);
});
