import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { CheckpointError, FileCheckpointStore } from '../../src/index.js';
import {
  fileLogDesk,
  STEPS_AFTER_TWO_RUNS,
  THREAD_AFTER_TWO_RUNS,
} from '../support/record-format-desk.js';
import { logLine, readLogLine } from '../support/file-log-lines.js';

// test/fixtures/file-log-v1.log was written by FileCheckpointStore before issue 19: one JSON
// object per line (format 1). Since then the store writes `<step><= or +><data>` (format 2), and
// since issue 27 each record in a file of its own under `<stem>.steps/`; it still reads old logs.

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

  it('goes on in record files after the old log, leaves it as it was, and loads both again', async () => {
    const { dir, file, desk } = await withFixture();
    const before = await readFile(file, 'utf8');
    const first = desk();
    // The fixture's scripted models answered twice each; this desk's answer again from the start.
    const result = await first.session(SESSION).run('Thanks!');
    expect(result.status).toBe('awaiting_input');
    expect(await readFile(file, 'utf8')).toBe(before);
    const steps = file.replace(/\.log$/, '.steps');
    expect(await readdir(steps)).toEqual(['7', '8', '9', 'session.json']);
    for (const n of [7, 8, 9]) {
      expect(/^\d+[=+]/.exec(await readFile(join(steps, String(n)), 'utf8'))?.[0]).toBe(`${n}+`);
    }
    const again = desk().session(SESSION);
    expect(await again.messages()).toEqual(await first.session(SESSION).messages());
    expect((await again.info()).step).toBe(9);
    expect((await again.checkpoints()).map((c) => c.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await readdir(dir)).toEqual([
      basename(file).replace(/\.log$/, '.leases'),
      basename(file),
      basename(steps),
    ]);
  });

  it('reports a broken checksum in the old log or in a record file as a CheckpointError', async () => {
    const { file, desk } = await withFixture();
    await desk().session(SESSION).run('Thanks!');
    const intact = await lines(file);
    const line = intact[2] as string;
    const record = readLogLine(line);
    await writeFile(
      file,
      intact
        .map((l) =>
          l === line
            ? JSON.stringify({ ...record, data: record.data.replace('invoice', 'invoicE') })
            : l,
        )
        .join('\n') + '\n',
    );
    const refusal = async (step: number) => {
      const error = await desk()
        .session(SESSION)
        .info()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CheckpointError);
      expect(error).toMatchObject({ sessionId: SESSION, step });
      expect((error as Error).message).toContain('its checksum does not match');
    };
    await refusal(3);
    await writeFile(file, `${intact.join('\n')}\n`);
    const eight = join(file.replace(/\.log$/, '.steps'), '8');
    const text = await readFile(eight, 'utf8');
    const edited = readLogLine(text.slice(0, -1));
    expect(edited.data).toContain('triage');
    await writeFile(
      eight,
      `${logLine({ ...edited, data: edited.data.replace('triage', 'triagE') })}\n`,
    );
    await refusal(8);
  });

  it('drops a torn last line of the old log and resumes at the step before', async () => {
    const { file, desk } = await withFixture();
    const text = await readFile(file, 'utf8');
    const lastLine = text.slice(text.lastIndexOf('\n', text.length - 2) + 1);
    await writeFile(file, text.slice(0, text.length - Math.floor(lastLine.length / 2)));
    const session = desk().session(SESSION);
    expect((await session.info()).step).toBe(5);
    expect((await session.checkpoints()).map((c) => c.step)).toEqual([1, 2, 3, 4, 5]);
    expect((await session.run()).status).toBe('awaiting_input');
    expect((await desk().session(SESSION).checkpoints()).map((c) => c.step)).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
  });
});
