import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { type AgentMessage, messageToText } from '../../src/index.js';
import { bundledScript } from '../support/bundled-script.js';

const WORKER = bundledScript('test/support/graph-crash-worker.ts');
const directories: string[] = [];

afterAll(async () => {
  for (const d of directories) await rm(d, { recursive: true, force: true });
});

function worker(directory: string, mode: 'crash' | 'resume') {
  const run = spawnSync(process.execPath, [WORKER, directory, mode], {
    encoding: 'utf8',
  });
  const out = run.stdout.trim();
  return {
    signal: run.signal,
    code: run.status,
    stderr: run.stderr,
    result:
      out === ''
        ? undefined
        : (JSON.parse(out) as { status: string; stopReason: string; thread: AgentMessage[] }),
  };
}

describe('SIGKILL while two graph branches are in flight', () => {
  it('after resume the thread holds each answer exactly once', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'baton-graph-crash-'));
    directories.push(directory);

    const killed = worker(directory, 'crash');
    expect([killed.signal, killed.result]).toEqual(['SIGKILL', undefined]);
    expect(await readFile(join(directory, 'calls.txt'), 'utf8')).toBe('intake\nleft\nright\n');

    const resumed = worker(directory, 'resume');
    expect([resumed.code, resumed.stderr]).toEqual([0, '']);
    // Both branches ran again (their answers had not been committed), then the join, once.
    expect(await readFile(join(directory, 'calls.txt'), 'utf8')).toBe(
      'intake\nleft\nright\nleft\nright\njoin\n',
    );
    expect([resumed.result?.status, resumed.result?.stopReason]).toEqual([
      'terminated',
      'Digraph execution is complete',
    ]);
    expect((resumed.result?.thread ?? []).map((m) => `${m.source}: ${messageToText(m)}`)).toEqual([
      'user: go',
      'intake: intake after go',
      'left: left after go + intake after go',
      'right: right after go + intake after go',
      'join: join after go + intake after go + left after go + intake after go + right after go + intake after go',
    ]);
  });
});
