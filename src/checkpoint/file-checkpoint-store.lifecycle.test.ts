import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { CheckpointRecord } from './checkpoint-store.js';
import { FileCheckpointStore } from './file-checkpoint-store.js';
import { sessionStem } from './file-names.js';

const rec = (step: number, data: string, snapshot = false): CheckpointRecord => ({
  step,
  snapshot,
  data,
});
const T0 = Date.parse('2026-03-01T10:00:00.000Z');

describe('FileCheckpointStore lifecycle', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'baton-file-lifecycle-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('lists and deletes a session kept in the one-file log of earlier versions', async () => {
    // "s-cw" is the stem of the id "s"; its log as the store wrote it before the .steps folders.
    const log = join(directory, 's-cw.log');
    await writeFile(log, '1=one\n2+two\n');
    await utimes(log, T0 / 1000, T0 / 1000);
    const store = new FileCheckpointStore(directory, { clock: () => T0 + 5_000 });
    expect(await store.list()).toEqual({
      sessions: [{ id: 's', step: 2, updatedAt: '2026-03-01T10:00:00.000Z' }],
    });
    expect(await store.append('s', rec(3, 'three'), { owner: 'late' })).toBe(true);
    expect(await store.list()).toEqual({
      sessions: [{ id: 's', step: 3, updatedAt: '2026-03-01T10:00:05.000Z' }],
    });
    expect(await store.delete('s')).toBe(true);
    expect(await readdir(directory)).toEqual([]);
  });

  it('lists a session whose id is too long for a file name, by the id in session.json', async () => {
    const id = `long-${'x'.repeat(200)}`;
    expect(sessionStem(id).startsWith('h-')).toBe(true);
    const store = new FileCheckpointStore(directory, { clock: () => T0 });
    expect(await store.append(id, rec(1, 'one', true), { owner: 'alice' })).toBe(true);
    expect(await store.list({ owner: 'alice' })).toEqual({
      sessions: [{ id, owner: 'alice', step: 1, updatedAt: '2026-03-01T10:00:00.000Z' }],
    });
    expect(await store.deleteOlderThan(new Date(T0 + 1))).toBe(1);
    expect(await readdir(directory)).toEqual([]);
  });

  it('deletes what a crash left of a session: temporary folders and a lease', async () => {
    const store = new FileCheckpointStore(directory);
    expect(await store.append('s', rec(1, 'one', true))).toBe(true);
    expect(await store.acquireLease('s', 'runner', 5_000)).toBe(true);
    // A writer killed while opening the log, or while deleting it, leaves these behind.
    await mkdir(join(directory, '.tmp-s-cw.steps-0d6c1f0e-5b8e-4b0e-9f55-0a8f8e1d2c3b'));
    await mkdir(join(directory, '.tmp-s-cw.deleted-1f7a7a4e-3c7b-4a51-8a1e-7f1d0c2b3a4d'));
    await mkdir(join(directory, '.tmp-s-other.steps-2b1c'));
    expect(await store.delete('s')).toBe(true);
    expect(await readdir(directory)).toEqual(['.tmp-s-other.steps-2b1c']);
    expect(await store.delete('s')).toBe(false);
  });
});
