import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { FileCheckpointStore } from '../../src/checkpoint/file-checkpoint-store.js';
import { bundledScript } from '../support/bundled-script.js';

// Issue 27 #1: a FileCheckpointStore writer stopped with SIGSTOP between its check and its write
// used to lose its lock to another process after 3 s and then append anyway on waking, leaving a
// log that could never be loaded again ("step 3 follows step 4"). The record of a step is now
// created at most once, so the late write fails however long the stop lasted.

const WRITER = bundledScript('test/support/stalled-writer.ts');
const directories: string[] = [];
afterEach(async () => {
  await Promise.all(directories.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('FileCheckpointStore with a writer stopped by SIGSTOP', () => {
  it('refuses the stopped writer its step once another process wrote it, and the log loads', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'baton-stalled-'));
    directories.push(directory);
    const child = spawn(process.execPath, [WRITER, directory], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.includes('stopping\n')) resolve();
      });
      child.on('exit', () => reject(new Error(`the writer exited early: ${stdout}${stderr}`)));
    });

    const other = new FileCheckpointStore(directory);
    expect(await other.append('s', { step: 3, snapshot: false, data: 'three' })).toBe(true);
    expect(await other.append('s', { step: 4, snapshot: false, data: 'four' })).toBe(true);
    child.kill('SIGCONT');

    expect(await exited, stderr).toBe(0);
    expect(stdout).toBe('stopping\nappended false\n');
    expect(await new FileCheckpointStore(directory).read('s', { from: 'start' })).toEqual([
      { step: 1, snapshot: true, data: 'one' },
      { step: 2, snapshot: false, data: 'two' },
      { step: 3, snapshot: false, data: 'three' },
      { step: 4, snapshot: false, data: 'four' },
    ]);
  }, 30_000);
});
