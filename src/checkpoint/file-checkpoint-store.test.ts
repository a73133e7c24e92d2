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
    expect(await readFile(await logFile(), 'utf8')).toBe('1=one\n2+two\n3+three\n');
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

  describe('a damaged log is a CheckpointError naming the session, never a new conversation', () => {
    const damaged = async (bytes: string) => {
      const store = new FileCheckpointStore(directory);
      await store.append('s', { step: 1, snapshot: true, data: 'one' });
      await store.append('s', { step: 2, snapshot: false, data: 'two' });
      await writeFile(await logFile(), bytes);
      return store;
    };
    const refusal = async (work: Promise<unknown>) => {
      const error = await work.then(
        () => new Error('accepted'),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CheckpointError);
      expect((error as CheckpointError).sessionId).toBe('s');
      return (error as Error).message;
    };

    it.each([
      ['overwritten with garbage', 'xq7#garbage without a single newline'],
      ['truncated at the head', 'shot":false,"data":"two"}'],
      ['emptied of records', ''],
    ])('%s: read() and append() refuse it and leave the file as it was', async (_what, bytes) => {
      const store = await damaged(bytes);
      expect(await refusal(store.read('s', { from: 'start' }))).toContain(
        'holds no complete record',
      );
      expect(
        await refusal(
          new FileCheckpointStore(directory).append('s', { step: 1, snapshot: true, data: 'new' }),
        ),
      ).toContain('holds no complete record');
      expect(await readFile(await logFile(), 'utf8')).toBe(bytes);
    });

    it('refuses a tail after the last record that is not the start of a record', async () => {
      const intact = '{"step":1,"snapshot":true,"data":"one"}\n';
      const store = await damaged(`${intact}garbage`);
      expect(await refusal(store.read('s'))).toContain('ends in bytes that are not a record');
      expect(await refusal(store.append('s', { step: 2, snapshot: false, data: 'x' }))).toContain(
        'ends in bytes that are not a record',
      );
      expect(await readFile(await logFile(), 'utf8')).toBe(`${intact}garbage`);
    });

    it('creates a log whole, so a crash during the first append leaves no file', async () => {
      const store = new FileCheckpointStore(directory);
      await store.append('s', { step: 1, snapshot: true, data: 'one' });
      expect((await readdir(directory)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      expect(await readFile(await logFile(), 'utf8')).toBe('1=one\n');
    });
  });

  it('breaks a lock left behind by a process that no longer exists', async () => {
    const store = new FileCheckpointStore(directory);
    await store.append('s', { step: 1, snapshot: true, data: 'one' });
    const lock = (await logFile()).replace(/\.log$/, '.lock');
    await writeFile(lock, '999999999');
    expect(await store.append('s', { step: 2, snapshot: false, data: 'two' })).toBe(true);
  });

  it('clears a lock left by a dead process when asked who holds the session', async () => {
    const store = new FileCheckpointStore(directory);
    await store.append('s', { step: 1, snapshot: true, data: 'one' });
    const lock = (await logFile()).replace(/\.log$/, '.lock');
    await writeFile(lock, '999999999');
    expect(await store.leaseHolder('s')).toBe(null);
    expect((await readdir(directory)).filter((f) => f.endsWith('.lock'))).toEqual([]);
    // A lock of a live process stays.
    await writeFile(lock, String(process.pid));
    expect(await store.leaseHolder('s')).toBe(null);
    expect((await readdir(directory)).filter((f) => f.endsWith('.lock'))).toHaveLength(1);
  });

  it('needs a directory', () => {
    expect(() => new FileCheckpointStore('')).toThrow(ConfigError);
  });
});
