import { access, mkdir, readdir, readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';

import { CheckpointError, ConfigError } from '../errors.js';
import type { CheckpointRecord, CheckpointStore, ReadOptions } from './checkpoint-store.js';
import { createFolderOnce, createOnce } from './exclusive-file.js';
import { leaseOwner, releaseLease, takeLease } from './file-lease.js';
import { formatLine, parseLine, parseLog } from './file-log-lines.js';
import { sessionStem } from './file-names.js';
import { deleteStem, fileSessions, SESSION_FILE, sessionFile } from './file-sessions.js';
import { continuesLog, readWindow } from './read-window.js';
import { checkSessionId } from './session-id.js';
import {
  type AppendOptions,
  cutoffOf,
  type ListOptions,
  listQuery,
  ownerOf,
  pageOf,
  type SessionPage,
} from './session-list.js';
import { codeOf } from '../unknown-value.js';

const STORE = 'FileCheckpointStore';
/** The name of a record's file: its step in decimal. */
const STEP_NAME = /^(0|[1-9][0-9]{0,15})$/;
/** Record files read at once (a long log is not opened all at once). */
const READ_BATCH = 64;

/**
 * Keeps each session's step log under `directory` (the embedded default: no server), for one or
 * several processes or hosts sharing the directory:
 *
 * - `<stem>.steps/<step>`: one file per record, holding its line (formats in `file-log-lines.ts`).
 *   A record is written to a temporary file, synced, then hard-linked to its step's name, which
 *   fails if the name exists: the compare-and-append is the file system's, so a writer stalled
 *   between its check and its write (SIGSTOP, a slow disk, another host) can never add a second
 *   record of a step. A crash leaves only a temporary file; the folder itself is created whole
 *   with its first record, so of two writers opening a log only one succeeds.
 * - `<stem>.steps/session.json`: the session's id and owner, written with the folder. A session's
 *   `updatedAt` is the modification time of its newest record file (see `file-sessions.ts`).
 * - `<stem>.leases/<generation>`: the lease (see `file-lease.ts`).
 * - `<stem>.log`: the one-file log the store wrote before, still read; new records of such a
 *   session go to its `.steps` folder, which then starts at the step after the log's last one.
 *
 * The stem encodes the session id one to one (`file-names.ts`).
 *
 * @example new FileCheckpointStore('.baton')
 */
export class FileCheckpointStore implements CheckpointStore {
  readonly directory: string;
  readonly #clock: () => number;
  #ready: Promise<void> | undefined;

  /** `options.clock` (ms since the epoch) gives each record's time, the `updatedAt` of `list()`. */
  constructor(directory: string, options: { clock?: () => number } = {}) {
    if (typeof directory !== 'string' || directory === '') {
      throw new ConfigError(
        'FileCheckpointStore needs a directory, e.g. new FileCheckpointStore(".baton").',
        { path: 'directory' },
      );
    }
    this.directory = directory;
    this.#clock = options.clock ?? Date.now;
  }

  async append(
    sessionId: string,
    record: CheckpointRecord,
    options?: AppendOptions,
  ): Promise<boolean> {
    checkSessionId(STORE, sessionId);
    const owner = ownerOf(STORE, options);
    const { step } = record;
    if (!Number.isSafeInteger(step) || step < 0) {
      throw new RangeError(
        `FileCheckpointStore: step ${step} of session ${JSON.stringify(sessionId)} is not a ` +
          'non-negative integer. Number steps 1, 2, 3, ...',
      );
    }
    await this.#ensureDirectory();
    const folder = this.#path(sessionId, 'steps');
    const line = formatLine(record);
    if (await exists(join(folder, String(step - 1)))) {
      await this.beforeWrite(sessionId, step);
      return (await createOnce(folder, String(step), line)) && this.#stamp(folder, step);
    }
    // Not after a record of the folder: the folder's first record, after the old log if any.
    const log = await this.#readOldLog(sessionId);
    if (!continuesLog(log.at(-1), record)) return false;
    await this.beforeWrite(sessionId, step);
    const files = {
      [String(step)]: line,
      [SESSION_FILE]: sessionFile(sessionId, log.length === 0 ? owner : undefined),
    };
    return (await createFolderOnce(folder, files)) && this.#stamp(folder, step);
  }

  async read(sessionId: string, options: ReadOptions = {}): Promise<CheckpointRecord[]> {
    checkSessionId(STORE, sessionId);
    const folder = this.#path(sessionId, 'steps');
    const from = options.from ?? 'snapshot';
    const upTo = options.upTo ?? Number.POSITIVE_INFINITY;
    if (typeof from === 'object' && (await exists(join(folder, String(from.after))))) {
      // Catching up (each run does): the records after a known one, read until the first step
      // with no file (records are never removed, and each needs the one before it).
      const records: CheckpointRecord[] = [];
      for (let n = from.after + 1; n <= upTo; n++) {
        const record = await readStep(sessionId, folder, n).catch(missing);
        if (record === undefined) break;
        records.push(record);
      }
      return records;
    }
    const numbers = (await stepNumbers(folder)).filter((n) => n <= upTo);
    if (from === 'snapshot') {
      // Backwards to the latest snapshot: a resumed session reads no further back than that.
      let tail: CheckpointRecord[] = [];
      for (let end = numbers.length; end > 0; end -= READ_BATCH) {
        const batch = numbers.slice(Math.max(0, end - READ_BATCH), end);
        tail = [...(await this.#readSteps(sessionId, folder, batch)), ...tail];
        const start = tail.findLastIndex((r) => r.snapshot);
        if (start >= 0) return tail.slice(start);
      }
      return readWindow([...(await this.#readOldLog(sessionId)), ...tail], options);
    }
    if (typeof from === 'object' && numbers[0] !== undefined && numbers[0] <= from.after + 1) {
      return this.#readSteps(
        sessionId,
        folder,
        numbers.filter((n) => n > from.after),
      );
    }
    const log = await this.#readOldLog(sessionId);
    return readWindow([...log, ...(await this.#readSteps(sessionId, folder, numbers))], options);
  }

  async acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    checkSessionId(STORE, sessionId);
    await this.#ensureDirectory();
    return takeLease(this.#path(sessionId, 'leases'), owner, ttlMs);
  }

  async releaseLease(sessionId: string, owner: string): Promise<void> {
    checkSessionId(STORE, sessionId);
    await releaseLease(this.#path(sessionId, 'leases'), owner);
  }

  async leaseHolder(sessionId: string): Promise<string | null> {
    checkSessionId(STORE, sessionId);
    return leaseOwner(this.#path(sessionId, 'leases'));
  }

  /** Deletes the session's records, old log, lease and any temporary files a crash left of them. */
  async delete(sessionId: string): Promise<boolean> {
    checkSessionId(STORE, sessionId);
    return deleteStem(this.directory, sessionStem(sessionId));
  }

  /**
   * Lists the sessions in the directory (reading each one's folder: for the thousands of sessions
   * an embedded store holds). Sessions written before `session.json` existed whose ids were too
   * long for a file name cannot be named, so they are not listed; `deleteOlderThan()` still
   * deletes them.
   */
  async list(options?: ListOptions): Promise<SessionPage> {
    const query = listQuery(STORE, options);
    const sessions = await fileSessions(this.directory);
    return pageOf(
      sessions.flatMap(({ id, owner, step, at }) =>
        id === undefined ? [] : [{ id, owner, step, at }],
      ),
      query,
    );
  }

  async deleteOlderThan(date: Date): Promise<number> {
    const cutoff = cutoffOf(STORE, date);
    const old = (await fileSessions(this.directory)).filter((s) => s.at < cutoff);
    const deleted = await Promise.all(old.map((s) => deleteStem(this.directory, s.stem)));
    return deleted.filter(Boolean).length;
  }

  async close(): Promise<void> {}

  /**
   * Called by `append()` between its check that the record continues the log and its write. It
   * does nothing; a test overrides it to stall a writer there, as SIGSTOP or a slow disk would.
   */
  protected async beforeWrite(_sessionId: string, _step: number): Promise<void> {}

  /** Sets a new record's time (its file's mtime) from the clock: the session's `updatedAt`. */
  async #stamp(folder: string, step: number): Promise<true> {
    const at = Math.round(this.#clock()) / 1000;
    await utimes(join(folder, String(step)), at, at);
    return true;
  }

  #path(sessionId: string, kind: 'log' | 'steps' | 'leases'): string {
    return join(this.directory, `${sessionStem(sessionId)}.${kind}`);
  }

  #ensureDirectory(): Promise<void> {
    this.#ready ??= mkdir(this.directory, { recursive: true, mode: 0o700 }).then(() => undefined);
    return this.#ready;
  }

  /** The records of the one-file log of a session written before the `.steps` folders. */
  async #readOldLog(sessionId: string): Promise<CheckpointRecord[]> {
    const path = this.#path(sessionId, 'log');
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return [];
      throw error;
    }
    return parseLog(sessionId, path, text);
  }

  async #readSteps(
    sessionId: string,
    folder: string,
    numbers: readonly number[],
  ): Promise<CheckpointRecord[]> {
    const records: CheckpointRecord[] = [];
    for (let i = 0; i < numbers.length; i += READ_BATCH) {
      const batch = numbers.slice(i, i + READ_BATCH);
      records.push(...(await Promise.all(batch.map((n) => readStep(sessionId, folder, n)))));
    }
    return records;
  }
}

/** The steps of the record files in `folder`, ascending; none when it does not exist. */
async function stepNumbers(folder: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return [];
    throw error;
  }
  return names
    .filter((name) => STEP_NAME.test(name))
    .map(Number)
    .sort((a, b) => a - b);
}

/** The record in the file of step `n`: one whole line naming that step, else a `CheckpointError`. */
async function readStep(sessionId: string, folder: string, n: number): Promise<CheckpointRecord> {
  const path = join(folder, String(n));
  const text = await readFile(path, 'utf8');
  const end = text.indexOf('\n');
  if (end !== text.length - 1) {
    const detail = `the record file ${path} is not one line ending in a newline (edited by hand?)`;
    throw new CheckpointError(sessionId, n, detail);
  }
  const record = parseLine(sessionId, path, text.slice(0, end), 1, n - 1);
  if (record.step !== n) {
    const detail = `the record file ${path} holds step ${record.step}`;
    throw new CheckpointError(sessionId, n, detail);
  }
  return record;
}

/** `undefined` for a file that does not exist; any other error is thrown again. */
function missing(error: unknown): undefined {
  if (codeOf(error) === 'ENOENT') return undefined;
  throw error;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return false;
    throw error;
  }
}
