import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { CheckpointError, ConfigError } from '../errors.js';
import type { CheckpointRecord } from './checkpoint-store.js';
import { FileCheckpointStore } from './file-checkpoint-store.js';

const rec = (step: number, data: string, snapshot = false): CheckpointRecord => ({
  step,
  snapshot,
  data,
});

/**
 * A store whose appends of step `at` stop between their check and their write until `resume()`:
 * a writer stopped with SIGSTOP or stalled on a slow disk at the worst moment.
 */
class StallingStore extends FileCheckpointStore {
  readonly reached: Promise<void>;
  readonly resume: () => void;
  readonly #at: number;
  readonly #reach: () => void;
  readonly #gate: Promise<void>;

  constructor(directory: string, at: number) {
    super(directory);
    this.#at = at;
    let reach = () => {};
    let resume = () => {};
    this.reached = new Promise((resolve) => {
      reach = resolve;
    });
    this.#gate = new Promise((resolve) => {
      resume = resolve;
    });
    this.#reach = reach;
    this.resume = resume;
  }

  protected override async beforeWrite(_sessionId: string, step: number): Promise<void> {
    if (step !== this.#at) return;
    this.#reach();
    await this.#gate;
  }
}

describe('FileCheckpointStore', () => {
  let directory: string;
  /** The one-file log of session 's' as the store wrote it before the `.steps` folders. */
  const oldLog = () => join(directory, 's-cw.log');

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'baton-file-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('never appends the step of a writer stalled between its check and its write once another wrote it', async () => {
    const stalled = new StallingStore(directory, 3);
    const other = new FileCheckpointStore(directory);
    await stalled.append('s', rec(1, 'one', true));
    await stalled.append('s', rec(2, 'two'));
    const late = stalled.append('s', rec(3, 'three from the stalled writer'));
    await stalled.reached;
    expect(await other.append('s', rec(3, 'three'))).toBe(true);
    expect(await other.append('s', rec(4, 'four'))).toBe(true);
    stalled.resume();
    expect(await late).toBe(false);
    expect(await new FileCheckpointStore(directory).read('s', { from: 'start' })).toEqual([
      rec(1, 'one', true),
      rec(2, 'two'),
      rec(3, 'three'),
      rec(4, 'four'),
    ]);
  });

  it('never opens a log twice when the first opener stalls before its write', async () => {
    const stalled = new StallingStore(directory, 1);
    const late = stalled.append('s', rec(1, 'fresh', true));
    await stalled.reached;
    const other = new FileCheckpointStore(directory);
    expect(await other.append('s', rec(5, 'fork', true))).toBe(true);
    expect(await other.append('s', rec(6, 'six'))).toBe(true);
    stalled.resume();
    expect(await late).toBe(false);
    expect(await other.read('s', { from: 'start' })).toEqual([rec(5, 'fork', true), rec(6, 'six')]);
  });

  it('lets the stalled writer win when nobody wrote its step meanwhile', async () => {
    const stalled = new StallingStore(directory, 2);
    await stalled.append('s', rec(1, 'one', true));
    const late = stalled.append('s', rec(2, 'two'));
    await stalled.reached;
    stalled.resume();
    expect(await late).toBe(true);
    expect(await new FileCheckpointStore(directory).append('s', rec(2, 'again'))).toBe(false);
  });

  it('skips what a writer killed before its write leaves behind and appends after the last record', async () => {
    const store = new FileCheckpointStore(directory);
    await store.append('s', rec(1, 'one', true));
    await store.append('s', rec(2, 'two'));
    const folder = join(directory, 's-cw.steps');
    await writeFile(join(folder, '.tmp-0b7c8e1a'), '3+thr');
    await mkdir(join(directory, '.tmp-5d1e'));
    expect((await store.read('s', { from: 'start' })).map((r) => r.step)).toEqual([1, 2]);
    expect(await store.append('s', rec(3, 'three'))).toBe(true);
    expect(await readFile(join(folder, '3'), 'utf8')).toBe('3+three\n');
  });

  it('finds the last step behind a large record', async () => {
    const store = new FileCheckpointStore(directory);
    await store.append('s', rec(1, 'ü'.repeat(200_000), true));
    expect(await store.append('s', rec(1, 'again', true))).toBe(false);
    expect(await store.append('s', rec(2, 'next'))).toBe(true);
    expect(await new FileCheckpointStore(directory).append('s', rec(3, 'x'))).toBe(true);
  });

  it('sees steps another store instance appended when catching up', async () => {
    const a = new FileCheckpointStore(directory);
    const b = new FileCheckpointStore(directory);
    await a.append('s', rec(1, 'one', true));
    expect(await a.read('s', { from: { after: 1 } })).toEqual([]);
    await b.append('s', rec(2, 'two'));
    expect(await a.read('s', { from: { after: 1 } })).toEqual([rec(2, 'two')]);
  });

  it('keeps ids that differ only in a lone surrogate apart (UTF-8 would make both U+FFFD)', async () => {
    const store = new FileCheckpointStore(directory);
    expect(await store.append('a\uD800', rec(1, 'high', true))).toBe(true);
    expect(await store.append('a\uDC00', rec(1, 'low', true))).toBe(true);
    expect(await store.append('a\uFFFD', rec(1, 'replacement', true))).toBe(true);
    const again = new FileCheckpointStore(directory);
    expect(await again.read('a\uD800')).toEqual([rec(1, 'high', true)]);
    expect(await again.read('a\uDC00')).toEqual([rec(1, 'low', true)]);
    expect(await again.read('a\uFFFD')).toEqual([rec(1, 'replacement', true)]);
    expect(await again.acquireLease('a\uD800', 'one', 5_000)).toBe(true);
    expect(await again.leaseHolder('a\uDC00')).toBe(null);
  });

  it('reports a line of an old log that is not a record as a CheckpointError with its place', async () => {
    await writeFile(oldLog(), '{"step":1,"snapshot":true,"data":"one"}\n[1,2,3]\n');
    const error = await new FileCheckpointStore(directory).read('s').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).step).toBe(2);
    expect((error as Error).message).toContain('line 2 of');
    expect((error as Error).message).toContain('is not a step record');
  });

  describe('a damaged old log is a CheckpointError naming the session, never a new conversation', () => {
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
      await writeFile(oldLog(), bytes);
      const store = new FileCheckpointStore(directory);
      expect(await refusal(store.read('s', { from: 'start' }))).toContain(
        'holds no complete record',
      );
      expect(
        await refusal(new FileCheckpointStore(directory).append('s', rec(1, 'new', true))),
      ).toContain('holds no complete record');
      expect(await readFile(oldLog(), 'utf8')).toBe(bytes);
      expect(await readdir(directory)).toEqual(['s-cw.log']);
    });

    it('refuses a tail after the last record that is not the start of a record', async () => {
      const bytes = '{"step":1,"snapshot":true,"data":"one"}\ngarbage';
      await writeFile(oldLog(), bytes);
      const store = new FileCheckpointStore(directory);
      expect(await refusal(store.read('s'))).toContain('ends in bytes that are not a record');
      expect(await refusal(store.append('s', rec(2, 'x')))).toContain(
        'ends in bytes that are not a record',
      );
      expect(await readFile(oldLog(), 'utf8')).toBe(bytes);
    });
  });

  it('creates a log whole with its first record, leaving no temporary file', async () => {
    const store = new FileCheckpointStore(directory);
    await store.append('s', rec(1, 'one', true));
    expect(await readdir(directory)).toEqual(['s-cw.steps']);
    expect(await readdir(join(directory, 's-cw.steps'))).toEqual(['1', 'session.json']);
  });

  it('frees at once a lease whose process on this host is gone, and keeps one of another host', async () => {
    const store = new FileCheckpointStore(directory);
    const leases = join(directory, 's-cw.leases');
    const lease = (host: string) =>
      JSON.stringify({ owner: 'gone', expires: Date.now() + 60_000, pid: 999_999_999, host });
    await mkdir(leases);
    await writeFile(join(leases, '1'), lease(hostname()));
    expect(await store.leaseHolder('s')).toBe(null);
    expect(await store.acquireLease('s', 'next', 5_000)).toBe(true);
    expect(await readdir(leases)).toEqual(['1', '2']);
    await writeFile(join(leases, '3'), lease('another-host'));
    expect(await store.leaseHolder('s')).toBe('gone');
    expect(await store.acquireLease('s', 'next', 5_000)).toBe(false);
  });

  it('lets one of many takers of an expired lease win, whatever they judged at once', async () => {
    const leases = join(directory, 's-cw.leases');
    await mkdir(leases);
    const expired = { owner: 'old', expires: Date.now() - 1, pid: process.pid, host: hostname() };
    await writeFile(join(leases, '7'), JSON.stringify(expired));
    const stores = Array.from({ length: 10 }, () => new FileCheckpointStore(directory));
    const won = await Promise.all(stores.map((s, i) => s.acquireLease('s', `taker ${i}`, 5_000)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await stores[0]?.leaseHolder('s')).toBe(`taker ${won.indexOf(true)}`);
  });

  it('refuses a step that is not a non-negative integer', async () => {
    const store = new FileCheckpointStore(directory);
    await expect(store.append('s', rec(1.5, 'x', true))).rejects.toThrow(
      'FileCheckpointStore: step 1.5 of session "s" is not a non-negative integer. Number steps 1, 2, 3, ...',
    );
  });

  it('needs a directory', () => {
    expect(() => new FileCheckpointStore('')).toThrow(ConfigError);
  });
});
