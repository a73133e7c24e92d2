import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

import { afterEach, describe, expect, it } from 'vitest';

import {
  Agent,
  CheckpointError,
  FileCheckpointStore,
  HandoffBuilder,
  ScriptedChatClient,
  scriptedText,
  textMessage,
} from '../../../src/index.js';
import { logLine, readLogLine } from '../../support/file-log-lines.js';
import { asPatchBody, threadLengthAfter } from '../../support/step-records.js';
import { foldIntoOneFileLogs } from '../../support/file-store-layout.js';

/**
 * Issue 12, items 4 and 5, on the embedded store: a damaged log is a CheckpointError naming the
 * session (only a torn final record may be dropped), and a record forged with a valid CRC-32 can
 * only append to the thread.
 *
 * The record format was learned from what the store writes: one line per step (since issue 19
 * `<step><= or +><data>`, see test/support/file-log-lines.ts), where `data` is 8 hex digits of
 * CRC-32 over `${session}\n${step}\n${body}` followed by `body`, the step's JSON (`p`: the step's
 * patches as `[op, path, value]`).
 */

const ID = 'ticket-99';
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A fresh workflow object over `dir`, as another process would build it. */
function desk(dir: string, ...answers: string[]) {
  const helper = new Agent({
    name: 'helper',
    client: new ScriptedChatClient(answers.map((a) => scriptedText(a))),
  });
  return new HandoffBuilder({ name: 'damaged', participants: [helper] })
    .coordinator(helper)
    .withCheckpointing(new FileCheckpointStore(dir))
    .build();
}

/** A session of four steps (user, answer+pause, user, answer+pause) and its one log file. */
async function written() {
  const dir = await mkdtemp(join(tmpdir(), 'baton-i12-file-'));
  dirs.push(dir);
  const workflow = desk(dir, 'Which invoice?', 'INV-1 is refunded. Anything else?');
  await workflow.session(ID).run('Where is my refund?');
  await workflow.session(ID).run('INV-1');
  const messages = await workflow.session(ID).messages();
  // The store keeps a file per record; damage is made to the one-file log it still reads.
  await foldIntoOneFileLogs(dir);
  const files = await readdir(dir);
  expect(files).toHaveLength(1);
  const file = join(dir, files[0] as string);
  const text = await readFile(file, 'utf8');
  const lines = text.split('\n');
  expect(lines.at(-1)).toBe('');
  expect(lines).toHaveLength(5);
  return { dir, file, text, lines: lines.slice(0, -1), messages };
}

/** Re-signs `body` for `step` as the store would. */
function sign(step: number, body: string): string {
  const crc = crc32(`${ID}\n${step}\n${body}`).toString(16).padStart(8, '0');
  return `${crc}${body}`;
}

/** The line with its body changed by `edit`, re-signed so that its CRC-32 is valid. */
function forge(
  line: string,
  edit: (body: Record<string, unknown>) => void,
  before: readonly string[],
): string {
  const record = readLogLine(line);
  expect(record.data.slice(0, 8)).toBe(
    crc32(`${ID}\n${record.step}\n${record.data.slice(8)}`)
      .toString(16)
      .padStart(8, '0'),
  );
  const bodyOfLine = (l: string) =>
    JSON.parse(readLogLine(l).data.slice(8)) as Record<string, unknown>;
  const body = asPatchBody(bodyOfLine(line), threadLengthAfter(before.map(bodyOfLine)));
  edit(body);
  return logLine({ ...record, data: sign(record.step, JSON.stringify(body)) });
}

/** Every way of reading the session rejects with a CheckpointError naming it; nothing is written. */
async function refused(dir: string, file: string) {
  const before = await readFile(file);
  const session = desk(dir, 'A fresh start?').session(ID);
  for (const read of [() => session.info(), () => session.messages(), () => session.run('hello')]) {
    const error = await read().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).name).toBe('CheckpointError');
    expect((error as Error).message).toContain(`"${ID}"`);
  }
  expect(await readFile(file)).toEqual(before);
}

describe('FileCheckpointStore: a damaged log is never a new conversation (item 4)', () => {
  it('control: the undamaged log loads with its four steps', async () => {
    const { dir, messages } = await written();
    const session = desk(dir).session(ID);
    expect(await session.messages()).toEqual(messages);
    expect((await session.checkpoints()).map((c) => c.step)).toEqual([1, 2, 3, 4]);
  });

  it('overwritten with garbage → CheckpointError naming the session', async () => {
    const { dir, file } = await written();
    await writeFile(file, 'GARBAGE \u0000\u00ff not a log at all\n{"half": \n');
    await refused(dir, file);
  });

  it('overwritten with random bytes → CheckpointError naming the session', async () => {
    const { dir, file } = await written();
    await writeFile(file, Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 37 + 11) % 256)));
    await refused(dir, file);
  });

  it('overwritten with one line of garbage and no newline (not a torn record) → CheckpointError', async () => {
    const { dir, file } = await written();
    await writeFile(file, 'GARBAGE, not a record of any session');
    await refused(dir, file);
  });

  it('truncated at the head down to a fragment of the last record, no newline → CheckpointError', async () => {
    const { dir, file, text } = await written();
    await writeFile(file, text.slice(-60, -1));
    await refused(dir, file);
  });

  it('truncated at the head (the first record gone) → CheckpointError', async () => {
    const { dir, file, lines } = await written();
    await writeFile(file, `${lines.slice(1).join('\n')}\n`);
    await refused(dir, file);
  });

  it('truncated at the head mid-record (first bytes gone) → CheckpointError', async () => {
    const { dir, file, text } = await written();
    await writeFile(file, text.slice(40));
    await refused(dir, file);
  });

  it('emptied of records (zero bytes) → CheckpointError', async () => {
    const { dir, file } = await written();
    await writeFile(file, '');
    await refused(dir, file);
  });

  it('emptied of records (blank lines only) → CheckpointError', async () => {
    const { dir, file } = await written();
    await writeFile(file, '\n\n\n');
    await refused(dir, file);
  });

  it('a middle record with a broken CRC → CheckpointError naming the session and step 2', async () => {
    const { dir, file, lines } = await written();
    const record = readLogLine(lines[1] as string);
    const broken = logLine({ ...record, data: record.data.replace('Which', 'Whish') });
    await writeFile(file, `${[lines[0], broken, ...lines.slice(2)].join('\n')}\n`);
    await refused(dir, file);
    const error = await desk(dir)
      .session(ID)
      .info()
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/\b2\b/);
  });

  it('a middle record removed (a gap in the steps) → CheckpointError', async () => {
    const { dir, file, lines } = await written();
    await writeFile(file, `${[lines[0], lines[2], lines[3]].join('\n')}\n`);
    await refused(dir, file);
  });

  it('a complete final record with a broken CRC is damage, not a torn write → CheckpointError', async () => {
    const { dir, file, lines } = await written();
    const record = readLogLine(lines[3] as string);
    const broken = logLine({ ...record, data: record.data.replace('refunded', 'refundeD') });
    await writeFile(file, `${[...lines.slice(0, 3), broken].join('\n')}\n`);
    await refused(dir, file);
  });

  it('a torn final record (no newline, cut mid-way) is dropped: the session is at step 3', async () => {
    const { dir, file, lines, messages } = await written();
    const last = lines[3] as string;
    await writeFile(file, `${lines.slice(0, 3).join('\n')}\n${last.slice(0, last.length >> 1)}`);
    const session = desk(dir, 'INV-1 is refunded. Anything else?').session(ID);
    expect((await session.checkpoints()).map((c) => c.step)).toEqual([1, 2, 3]);
    const info = await session.info();
    expect(info.step).toBe(3);
    expect(info.status).not.toBe('running');
    // The thread as last committed: everything but the answer and its pause.
    expect(await session.messages()).toEqual(messages.slice(0, -2));
    // run() with no task finishes the interrupted turn.
    const done = await session.run();
    expect(done.status).toBe('awaiting_input');
    expect(done.pendingRequest?.prompt).toBe('INV-1 is refunded. Anything else?');
  });
});

describe('FileCheckpointStore: a forged record can only append to the thread (item 5)', () => {
  /** A written session whose last record (step 4, the answer and pause) is edited by `edit`. */
  async function withLast(edit: (body: Record<string, unknown>) => void) {
    const w = await written();
    const line = forge(w.lines[3] as string, edit, w.lines.slice(0, 3));
    await writeFile(w.file, `${[...w.lines.slice(0, 3), line].join('\n')}\n`);
    return w;
  }
  type Patch = [string, (string | number)[], unknown];
  const patchesOf = (body: Record<string, unknown>) => body.p as Patch[];

  it('control: a genuine record re-signed unchanged loads as before', async () => {
    const { dir, messages } = await withLast(() => {});
    expect(await desk(dir).session(ID).messages()).toEqual(messages);
  });

  it('control: a re-signed record that still only appends loads (the CRC is what it claims)', async () => {
    const { dir, messages } = await withLast((body) => {
      const first = patchesOf(body)[0] as Patch;
      first[2] = { ...(first[2] as object), content: 'Forged but appended.' };
    });
    const loaded = await desk(dir).session(ID).messages();
    expect(loaded).toHaveLength(messages.length);
    expect(loaded.at(-2)).toMatchObject({ type: 'TextMessage', content: 'Forged but appended.' });
  });

  it('control: loadState and reset may replace the thread, and such sessions load again', async () => {
    const { dir, messages } = await written();
    const session = desk(dir).session(ID);
    const saved = (await session.saveState()) as { thread: unknown[] };
    // An earlier state of the same session: its first three messages, paused at the question.
    await session.loadState({ ...saved, thread: saved.thread.slice(0, 3) });
    expect(await desk(dir).session(ID).messages()).toEqual(messages.slice(0, 3));
    await desk(dir).session(ID).reset();
    expect(await desk(dir).session(ID).messages()).toEqual([]);
    const again = await desk(dir, 'Hello again.').session(ID).run('hi');
    expect(again.pendingRequest?.prompt).toBe('Hello again.');
  });

  const forgeries: [string, (body: Record<string, unknown>) => void][] = [
    [
      'an agent step that inserts its answer at the head of the thread',
      (body) => {
        const first = patchesOf(body)[0] as Patch;
        expect(first[0]).toBe('a');
        expect(first[1][0]).toBe('thread');
        first[1] = ['thread', 0];
      },
    ],
    [
      'an agent step that inserts in the middle of the thread',
      (body) => {
        (patchesOf(body)[0] as Patch)[1] = ['thread', 1];
      },
    ],
    [
      'an agent step that replaces the first message',
      (body) => {
        patchesOf(body).unshift([
          'r',
          ['thread', 0],
          textMessage({ source: 'user', content: 'I never said this' }),
        ]);
      },
    ],
    [
      'an agent step that replaces the whole thread',
      (body) => {
        patchesOf(body).unshift([
          'r',
          ['thread'],
          [textMessage({ source: 'user', content: 'A rewritten history' })],
        ]);
      },
    ],
    [
      'an agent step that edits a field of an earlier message',
      (body) => {
        patchesOf(body).unshift(['r', ['thread', 0, 'content'], 'I never said this']);
      },
    ],
    [
      'an agent step that truncates the thread',
      (body) => {
        patchesOf(body).unshift(['r', ['thread', 'length'], 1]);
      },
    ],
  ];

  for (const [what, edit] of forgeries) {
    it(`${what} → CheckpointError naming the session`, async () => {
      const { dir, file } = await withLast(edit);
      await refused(dir, file);
    });
  }

  it('a user step that inserts at the head → CheckpointError', async () => {
    const { dir, file, lines } = await written();
    const forged = forge(
      lines[2] as string,
      (body) => {
        const first = patchesOf(body)[0] as Patch;
        expect(body.event).toBe('user_input');
        first[1] = ['thread', 0];
      },
      lines.slice(0, 2),
    );
    await writeFile(file, `${[lines[0], lines[1], forged].join('\n')}\n`);
    await refused(dir, file);
  });
});
