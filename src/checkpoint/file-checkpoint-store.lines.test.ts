import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { CheckpointError } from '../errors.js';
import { FileCheckpointStore } from './file-checkpoint-store.js';

// The store's line formats on disk (file-log-lines.ts): it writes format 2 lines, still reads the
// format 1 lines it wrote before, and reports damage to either as a CheckpointError.

describe('FileCheckpointStore line formats', () => {
  let directory: string;
  const logFile = async () => {
    const name = (await readdir(directory)).find((f) => f.endsWith('.log'));
    return join(directory, name ?? 'missing');
  };
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
  /** A log of the two lines `1=one` and `2+two`, as the store wrote it. */
  const written = async () => {
    const store = new FileCheckpointStore(directory);
    await store.append('s', { step: 1, snapshot: true, data: 'one' });
    await store.append('s', { step: 2, snapshot: false, data: 'two' });
    return store;
  };

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'baton-file-lines-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('writes records unescaped after their step and kind', async () => {
    const store = new FileCheckpointStore(directory);
    const data = '0a1b2c3d{"v":2,"a":[{"content":"say \\"hi\\""}]}';
    await store.append('s', { step: 1, snapshot: true, data: 'one' });
    await store.append('s', { step: 2, snapshot: false, data });
    expect(await readFile(await logFile(), 'utf8')).toBe(`1=one\n2+${data}\n`);
    expect(await new FileCheckpointStore(directory).read('s', { from: 'start' })).toEqual([
      { step: 1, snapshot: true, data: 'one' },
      { step: 2, snapshot: false, data },
    ]);
  });

  it('appends format 2 lines to a log of format 1 lines and reads the mixed log', async () => {
    await writeFile(
      join(directory, 's-cw.log'),
      '{"step":4,"snapshot":true,"data":"four"}\n{"step":5,"snapshot":false,"data":"five"}\n',
    );
    const store = new FileCheckpointStore(directory);
    expect(await store.append('s', { step: 5, snapshot: false, data: 'again' })).toBe(false);
    expect(await store.append('s', { step: 6, snapshot: false, data: 'six' })).toBe(true);
    expect(
      await new FileCheckpointStore(directory).append('s', {
        step: 7,
        snapshot: true,
        data: 'seven',
      }),
    ).toBe(true);
    expect(await readFile(join(directory, 's-cw.log'), 'utf8')).toBe(
      '{"step":4,"snapshot":true,"data":"four"}\n{"step":5,"snapshot":false,"data":"five"}\n' +
        '6+six\n7=seven\n',
    );
    expect(await new FileCheckpointStore(directory).read('s', { from: 'start' })).toEqual([
      { step: 4, snapshot: true, data: 'four' },
      { step: 5, snapshot: false, data: 'five' },
      { step: 6, snapshot: false, data: 'six' },
      { step: 7, snapshot: true, data: 'seven' },
    ]);
    expect((await store.read('s')).map((r) => r.step)).toEqual([7]);
  });

  it('keeps data with a newline in a format 1 line among format 2 lines', async () => {
    const store = await written();
    await store.append('s', { step: 3, snapshot: false, data: 'three\nlines' });
    await store.append('s', { step: 4, snapshot: false, data: 'four' });
    expect(await readFile(await logFile(), 'utf8')).toBe(
      '1=one\n2+two\n{"step":3,"snapshot":false,"data":"three\\nlines"}\n4+four\n',
    );
    expect(
      (await new FileCheckpointStore(directory).read('s', { from: { after: 2 } })).map(
        (r) => r.data,
      ),
    ).toEqual(['three\nlines', 'four']);
  });

  it.each([
    ['its step', '3'],
    ['its step and kind', '3+'],
    ['part of its data', '3+thr'],
  ])(
    'drops a format 2 record cut short after %s and appends after the last whole one',
    async (_, torn) => {
      const store = await written();
      await appendFile(await logFile(), torn);
      expect(await steps(new FileCheckpointStore(directory))).toEqual([1, 2]);
      expect(
        await new FileCheckpointStore(directory).append('s', {
          step: 3,
          snapshot: false,
          data: 'three',
        }),
      ).toBe(true);
      expect(await readFile(await logFile(), 'utf8')).toBe('1=one\n2+two\n3+three\n');
      expect(await steps(store)).toEqual([1, 2, 3]);
    },
  );

  it('refuses a tail that starts like a step but goes on otherwise, and leaves the file', async () => {
    await written();
    await appendFile(await logFile(), '3x+three');
    const bytes = await readFile(await logFile(), 'utf8');
    const store = new FileCheckpointStore(directory);
    expect((await refusal(store.read('s'))).message).toContain(
      'ends in bytes that are not a record',
    );
    expect(
      (await refusal(store.append('s', { step: 3, snapshot: false, data: 'x' }))).message,
    ).toContain('ends in bytes that are not a record');
    expect(await readFile(await logFile(), 'utf8')).toBe(bytes);
  });

  it.each([
    ['a lost kind', '1=one\n2two\n3+three\n', 2],
    ['a lost step', '1=one\n+two\n3+three\n', 2],
    ['a letter in the step', '1=one\n2+two\nl3+three\n', 3],
    ['a blank line', '1=one\n\n3+three\n', 2],
  ])(
    'reports a format 2 line with %s as a CheckpointError with its place',
    async (_, bytes, line) => {
      await written();
      await writeFile(await logFile(), bytes);
      const error = await refusal(new FileCheckpointStore(directory).read('s'));
      expect(error.step).toBe(line);
      expect(error.message).toContain(`line ${line} of`);
      expect(error.message).toContain('is not a step record');
    },
  );

  it('reports a damaged last line when appending, and leaves the file', async () => {
    await written();
    await writeFile(await logFile(), '1=one\n2two\n');
    const error = await refusal(
      new FileCheckpointStore(directory).append('s', { step: 3, snapshot: false, data: 'x' }),
    );
    expect(error.message).toContain('the last line of');
    expect(error.message).toContain('is not a step record');
    expect(await readFile(await logFile(), 'utf8')).toBe('1=one\n2two\n');
  });
});
