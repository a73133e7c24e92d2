import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { CheckpointError } from '../errors.js';
import { FileCheckpointStore } from './file-checkpoint-store.js';

// The store's line formats on disk (file-log-lines.ts): it writes each record as a format 2 line
// in a file of its own (format 1 when the data holds a newline), still reads the one-file logs of
// format 1 and 2 lines it wrote before, and reports damage to either as a CheckpointError.

describe('FileCheckpointStore line formats', () => {
  let directory: string;
  /** The one-file log of session 's' as the store wrote it before the `.steps` folders. */
  const oldLog = () => join(directory, 's-cw.log');
  const recordFile = (step: number) => join(directory, 's-cw.steps', String(step));
  const steps = async (store: FileCheckpointStore) =>
    (await store.read('s', { from: 'start' })).map((r) => r.step);
  const refusal = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => new Error('accepted'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).sessionId).toBe('s');
    return error as CheckpointError;
  };

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'baton-file-lines-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('writes each record unescaped after its step and kind, in a file named by its step', async () => {
    const store = new FileCheckpointStore(directory);
    const data = '0a1b2c3d{"v":2,"a":[{"content":"say \\"hi\\""}]}';
    await store.append('s', { step: 1, snapshot: true, data: 'one' });
    await store.append('s', { step: 2, snapshot: false, data });
    expect(await readdir(directory)).toEqual(['s-cw.steps']);
    expect(await readdir(join(directory, 's-cw.steps'))).toEqual(['1', '2', 'session.json']);
    expect(await readFile(recordFile(1), 'utf8')).toBe('1=one\n');
    expect(await readFile(recordFile(2), 'utf8')).toBe(`2+${data}\n`);
    expect(await new FileCheckpointStore(directory).read('s', { from: 'start' })).toEqual([
      { step: 1, snapshot: true, data: 'one' },
      { step: 2, snapshot: false, data },
    ]);
  });

  it('goes on after an old log of format 1 lines, which it leaves as it was', async () => {
    const old =
      '{"step":4,"snapshot":true,"data":"four"}\n{"step":5,"snapshot":false,"data":"five"}\n';
    await writeFile(oldLog(), old);
    const store = new FileCheckpointStore(directory);
    expect(await store.append('s', { step: 5, snapshot: false, data: 'again' })).toBe(false);
    expect(await store.append('s', { step: 7, snapshot: false, data: 'gap' })).toBe(false);
    expect(await store.append('s', { step: 6, snapshot: false, data: 'six' })).toBe(true);
    expect(
      await new FileCheckpointStore(directory).append('s', {
        step: 7,
        snapshot: true,
        data: 'seven',
      }),
    ).toBe(true);
    expect(await store.append('s', { step: 6, snapshot: false, data: 'six again' })).toBe(false);
    expect(await readFile(oldLog(), 'utf8')).toBe(old);
    expect(await readFile(recordFile(6), 'utf8')).toBe('6+six\n');
    expect(await new FileCheckpointStore(directory).read('s', { from: 'start' })).toEqual([
      { step: 4, snapshot: true, data: 'four' },
      { step: 5, snapshot: false, data: 'five' },
      { step: 6, snapshot: false, data: 'six' },
      { step: 7, snapshot: true, data: 'seven' },
    ]);
    expect((await store.read('s')).map((r) => r.step)).toEqual([7]);
    expect((await store.read('s', { upTo: 6 })).map((r) => r.step)).toEqual([4, 5, 6]);
    expect((await store.read('s', { from: { after: 4 } })).map((r) => r.step)).toEqual([5, 6, 7]);
    expect((await store.read('s', { from: { after: 6 } })).map((r) => r.step)).toEqual([7]);
  });

  it('keeps data with a newline as a format 1 line', async () => {
    const store = new FileCheckpointStore(directory);
    await store.append('s', { step: 1, snapshot: true, data: 'one' });
    await store.append('s', { step: 2, snapshot: false, data: 'two\nlines' });
    expect(await readFile(recordFile(2), 'utf8')).toBe(
      '{"step":2,"snapshot":false,"data":"two\\nlines"}\n',
    );
    expect(
      (await new FileCheckpointStore(directory).read('s', { from: { after: 1 } })).map(
        (r) => r.data,
      ),
    ).toEqual(['two\nlines']);
  });

  it.each([
    ['its step', '3'],
    ['its step and kind', '3+'],
    ['part of its data', '3+thr'],
  ])(
    'drops a format 2 record of an old log cut short after %s and goes on after the last whole one',
    async (_, torn) => {
      await writeFile(oldLog(), `1=one\n2+two\n${torn}`);
      const store = new FileCheckpointStore(directory);
      expect(await steps(store)).toEqual([1, 2]);
      expect(await store.append('s', { step: 3, snapshot: false, data: 'three' })).toBe(true);
      expect(await steps(new FileCheckpointStore(directory))).toEqual([1, 2, 3]);
    },
  );

  it('refuses an old log whose tail starts like a step but goes on otherwise, and leaves it', async () => {
    const bytes = '1=one\n2+two\n3x+three';
    await writeFile(oldLog(), bytes);
    const store = new FileCheckpointStore(directory);
    expect((await refusal(store.read('s'))).message).toContain(
      'ends in bytes that are not a record',
    );
    expect(
      (await refusal(store.append('s', { step: 3, snapshot: false, data: 'x' }))).message,
    ).toContain('ends in bytes that are not a record');
    expect(await readFile(oldLog(), 'utf8')).toBe(bytes);
    expect(await readdir(directory)).toEqual(['s-cw.log']);
  });

  it.each([
    ['a lost kind', '1=one\n2two\n3+three\n', 2],
    ['a lost step', '1=one\n+two\n3+three\n', 2],
    ['a letter in the step', '1=one\n2+two\nl3+three\n', 3],
    ['a blank line', '1=one\n\n3+three\n', 2],
  ])(
    'reports a format 2 line with %s as a CheckpointError with its place',
    async (_, bytes, line) => {
      await writeFile(oldLog(), bytes);
      const store = new FileCheckpointStore(directory);
      // Each call is made only when awaited: a second one made early would reject unhandled.
      for (const work of [
        () => store.read('s'),
        () => store.append('s', { step: 4, snapshot: false, data: 'x' }),
      ]) {
        const error = await refusal(work());
        expect(error.step).toBe(line);
        expect(error.message).toContain(`line ${line} of`);
        expect(error.message).toContain('is not a step record');
      }
      expect(await readFile(oldLog(), 'utf8')).toBe(bytes);
    },
  );

  it.each([
    ['without its newline', '2+two', 'is not one line ending in a newline'],
    ['with a second line', '2+two\n3+three\n', 'is not one line ending in a newline'],
    ['holding another step', '3+three\n', 'holds step 3'],
    ['holding no record', 'two\n', 'is not a step record'],
  ])('reports a record file %s as a CheckpointError naming it', async (_, bytes, detail) => {
    const store = new FileCheckpointStore(directory);
    await store.append('s', { step: 1, snapshot: true, data: 'one' });
    await store.append('s', { step: 2, snapshot: false, data: 'two' });
    await writeFile(recordFile(2), bytes);
    const error = await refusal(new FileCheckpointStore(directory).read('s'));
    expect(error.step).toBe(2);
    expect(error.message).toContain(recordFile(2));
    expect(error.message).toContain(detail);
  });
});
