import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { CheckpointError, ConfigError } from '../errors.js';
import { FileCheckpointStore } from './file-checkpoint-store.js';

describe('FileCheckpointStore', () => {
  let directory: string;
  const logFile = async () => {
    const name = (await readdir(directory)).find((f) => f.endsWith('.log'));
    return join(directory, name ?? 'missing');
  };

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'baton-file-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('drops a record cut short by a crash and appends after the last whole one', async () => {
    const store = new FileCheckpointStore(directory);
    await store.append('s', { step: 1, snapshot: true, data: 'one' });
    await store.append('s', { step: 2, snapshot: false, data: 'two' });
    await appendFile(await logFile(), '{"step":3,"snapshot":false,"da');
    expect((await store.read('s', { from: 'start' })).map((r) => r.step)).toEqual([1, 2]);
    expect(await store.append('s', { step: 3, snapshot: false, data: 'three' })).toBe(true);
    expect(await readFile(await logFile(), 'utf8')).toBe(
      '{"step":1,"snapshot":true,"data":"one"}\n{"step":2,"snapshot":false,"data":"two"}\n{"step":3,"snapshot":false,"data":"three"}\n',
    );
  });

  it('finds the last step behind a record larger than its read-back window', async () => {
    const store = new FileCheckpointStore(directory);
    await store.append('s', { step: 1, snapshot: true, data: 'ü'.repeat(200_000) });
    expect(await store.append('s', { step: 1, snapshot: true, data: 'again' })).toBe(false);
    expect(await store.append('s', { step: 2, snapshot: false, data: 'next' })).toBe(true);
    expect(
      await new FileCheckpointStore(directory).append('s', { step: 3, snapshot: false, data: 'x' }),
    ).toBe(true);
  });

  it('sees steps another store instance appended when catching up', async () => {
    const a = new FileCheckpointStore(directory);
    const b = new FileCheckpointStore(directory);
    await a.append('s', { step: 1, snapshot: true, data: 'one' });
    expect(await a.read('s', { from: { after: 1 } })).toEqual([]);
    await b.append('s', { step: 2, snapshot: false, data: 'two' });
    expect(await a.read('s', { from: { after: 1 } })).toEqual([
      { step: 2, snapshot: false, data: 'two' },
    ]);
  });

  it('reports a line that is not a record as a CheckpointError with its place', async () => {
    const store = new FileCheckpointStore(directory);
    await store.append('s', { step: 1, snapshot: true, data: 'one' });
    await writeFile(await logFile(), '{"step":1,"snapshot":true,"data":"one"}\n[1,2,3]\n');
    const error = await store.read('s').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).step).toBe(2);
    expect((error as Error).message).toContain('line 2 of');
    expect((error as Error).message).toContain('is not a step record');
  });

  it('breaks a lock left behind by a process that no longer exists', async () => {
    const store = new FileCheckpointStore(directory);
    await store.append('s', { step: 1, snapshot: true, data: 'one' });
    const lock = (await logFile()).replace(/\.log$/, '.lock');
    await writeFile(lock, '999999999');
    expect(await store.append('s', { step: 2, snapshot: false, data: 'two' })).toBe(true);
  });

  it('needs a directory', () => {
    expect(() => new FileCheckpointStore('')).toThrow(ConfigError);
  });
});
