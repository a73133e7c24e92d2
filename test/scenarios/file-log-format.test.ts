import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { CheckpointError, FileCheckpointStore } from '../../src/index.js';
import {
  fileLogDesk,
  STEPS_AFTER_TWO_RUNS,
  THREAD_AFTER_TWO_RUNS,
} from '../support/record-format-desk.js';
import { logLine, readLogLine } from '../support/file-log-lines.js';

// test/fixtures/file-log-v1.log was written by FileCheckpointStore before issue 19: one JSON
// object per line (format 1). Since then the store writes `<step><= or +><data>` (format 2).

const SESSION = 'legacy-file';
const FIXTURE = join(import.meta.dirname, '../fixtures/file-log-v1.log');
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A store directory holding the fixture as the session's log. */
async function withFixture() {
  const dir = await mkdtemp(join(tmpdir(), 'baton-file-log-'));
  dirs.push(dir);
  const file = join(dir, `s-${Buffer.from(SESSION).toString('base64url')}.log`);
  await copyFile(FIXTURE, file);
  return { dir, file, desk: () => fileLogDesk(new FileCheckpointStore(dir)) };
}

const texts = (messages: readonly { source: string; type: string }[]) =>
  messages.map((m) => `${m.type} ${m.source}`);

const lines = async (file: string) => (await readFile(file, 'utf8')).split('\n').slice(0, -1);

describe('a file log written before the format 2 lines', () => {
  it('loads: the thread, the pause, the step log', async () => {
    const { desk } = await withFixture();
    const session = desk().session(SESSION);
    expect(texts(await session.messages())).toEqual(THREAD_AFTER_TWO_RUNS);
    expect(await session.info()).toMatchObject({
      status: 'awaiting_input',
      step: 6,
      pendingRequest: { agent: 'billing', prompt: 'INV-1 is refunded. Anything else?' },
    });
    expect((await session.checkpoints()).map((c) => `${c.step} ${c.event}`)).toEqual(
      STEPS_AFTER_TWO_RUNS,
    );
  });

  it('goes on in format 2 lines after the old ones, and the mixed log loads again', async () => {
    const { file, desk } = await withFixture();
    const before = await lines(file);
    const first = desk();
    // The fixture's scripted models answered twice each; this desk's answer again from the start.
    const result = await first.session(SESSION).run('Thanks!');
    expect(result.status).toBe('awaiting_input');
    const after = await lines(file);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(before.every((l) => l.startsWith('{"step":'))).toBe(true);
    expect(after.slice(before.length).map((l) => /^\d+[=+]/.exec(l)?.[0])).toEqual([
      '7+',
      '8+',
      '9+',
    ]);
    const again = desk().session(SESSION);
    expect(await again.messages()).toEqual(await first.session(SESSION).messages());
    expect((await again.info()).step).toBe(9);
    expect((await again.checkpoints()).map((c) => c.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('reports a broken checksum in either format of a mixed log as a CheckpointError', async () => {
    const { file, desk } = await withFixture();
    await desk().session(SESSION).run('Thanks!');
    const intact = await lines(file);
    for (const [at, from, to] of [
      [2, 'invoice', 'invoicE'],
      [7, 'triage', 'triagE'],
    ] as const) {
      const record = readLogLine(intact[at] as string);
      const edited = { ...record, data: record.data.replace(from, to) };
      expect(edited.data).not.toBe(record.data);
      const line = at < 6 ? JSON.stringify(edited) : logLine(edited);
      await writeFile(file, `${intact.map((l, i) => (i === at ? line : l)).join('\n')}\n`);
      const error = await desk()
        .session(SESSION)
        .info()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CheckpointError);
      expect(error).toMatchObject({ sessionId: SESSION, step: at + 1 });
      expect((error as Error).message).toContain('its checksum does not match');
    }
  });

  it('drops a torn format 2 line after the old ones and resumes at the step before', async () => {
    const { file, desk } = await withFixture();
    await desk().session(SESSION).run('Thanks!');
    const text = await readFile(file, 'utf8');
    const lastLine = text.slice(text.lastIndexOf('\n', text.length - 2) + 1);
    await writeFile(file, text.slice(0, text.length - Math.floor(lastLine.length / 2)));
    const session = desk().session(SESSION);
    expect((await session.info()).step).toBe(8);
    expect((await session.checkpoints()).map((c) => c.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
