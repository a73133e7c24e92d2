import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { ConfigError } from '../errors.js';
import type { CheckpointRecord, CheckpointStore, ReadOptions } from './checkpoint-store.js';
import { continuesLog, readWindow } from './read-window.js';
import {
  badTail,
  formatLine,
  isRecordStart,
  noRecord,
  parseLine,
  RECORD_START_LENGTH,
} from './file-log-lines.js';

/** A lock older than this is taken to belong to a process that died holding it. */
const STALE_LOCK_MS = 3_000;

/** The file name stem of a session: reversible base64url, or a hash for very long ids. */
function stem(sessionId: string): string {
  const encoded = Buffer.from(sessionId, 'utf8').toString('base64url');
  return encoded.length <= 180
    ? `s-${encoded}`
    : `h-${createHash('sha256').update(sessionId).digest('hex')}`;
}

/**
 * Keeps each session's step log in a file under `directory`, one record per line (the embedded
 * default: no server; the line formats are in `file-log-lines.ts`). Appends are written with one
 * `write` and `fdatasync`ed before they count; a record cut short by a kill is recognised (no final
 * newline) and dropped, so a crash loses at most the step in flight. Appends and leases take a
 * short lock file, so several processes can share the directory.
 *
 * @example new FileCheckpointStore('.baton')
 */
export class FileCheckpointStore implements CheckpointStore {
  readonly directory: string;
  #ready: Promise<void> | undefined;
  /** Per session: the log's size and last step when this store last wrote or read it whole. */
  readonly #known = new Map<string, { size: number; lastStep: number }>();

  constructor(directory: string) {
    if (typeof directory !== 'string' || directory === '') {
      throw new ConfigError(
        'FileCheckpointStore needs a directory, e.g. new FileCheckpointStore(".baton").',
        {
          path: 'directory',
        },
      );
    }
    this.directory = directory;
  }

  async append(sessionId: string, record: CheckpointRecord): Promise<boolean> {
    await this.#ensureDirectory();
    const path = this.#path(sessionId, 'log');
    return this.#locked(sessionId, async () => {
      const last = await this.#lastRecord(sessionId, path);
      if (!continuesLog(last, record)) return false;
      const line = formatLine(record);
      if (last === undefined) {
        await this.#create(path, line);
        this.#known.set(sessionId, { size: Buffer.byteLength(line), lastStep: record.step });
        return true;
      }
      const file = await open(path, constants.O_WRONLY | constants.O_APPEND, 0o600);
      try {
        await file.write(line);
        await file.datasync();
        this.#known.set(sessionId, { size: (await file.stat()).size, lastStep: record.step });
      } finally {
        await file.close();
      }
      return true;
    });
  }

  async read(sessionId: string, options?: ReadOptions): Promise<CheckpointRecord[]> {
    const path = this.#path(sessionId, 'log');
    const from = options?.from;
    const known = this.#known.get(sessionId);
    if (typeof from === 'object' && known !== undefined && from.after >= known.lastStep) {
      // Catching up (each run does): an unchanged file has nothing after the last known step.
      const size = await stat(path).then(
        (info) => info.size,
        () => -1,
      );
      if (size === known.size) return [];
    }
    return readWindow(await this.#readLog(sessionId, path), options);
  }

  async acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    await this.#ensureDirectory();
    return this.#locked(sessionId, async () => {
      const lease = await this.#readLease(sessionId);
      if (lease !== null && lease.owner !== owner && held(lease)) return false;
      await this.#writeLease(sessionId, {
        owner,
        expires: Date.now() + ttlMs,
        pid: process.pid,
        host: hostname(),
      });
      return true;
    });
  }

  async releaseLease(sessionId: string, owner: string): Promise<void> {
    await this.#ensureDirectory();
    await this.#locked(sessionId, async () => {
      if ((await this.#readLease(sessionId))?.owner === owner) {
        await unlink(this.#path(sessionId, 'lease')).catch(() => undefined);
      }
    });
  }

  async leaseHolder(sessionId: string): Promise<string | null> {
    const lease = await this.#readLease(sessionId);
    // A process killed while it held the lock (e.g. releasing the lease of a session it had just
    // finished) leaves the lock file; a later process that only reads the session would never
    // take the lock to break it. Whoever asks who holds the session clears it.
    await this.#breakIfStale(this.#path(sessionId, 'lock'));
    return lease !== null && held(lease) ? lease.owner : null;
  }

  async close(): Promise<void> {}

  #path(sessionId: string, kind: 'log' | 'lock' | 'lease'): string {
    return join(this.directory, `${stem(sessionId)}.${kind}`);
  }

  #ensureDirectory(): Promise<void> {
    this.#ready ??= mkdir(this.directory, { recursive: true, mode: 0o700 }).then(() => undefined);
    return this.#ready;
  }

  /**
   * Writes a new log whole (a temporary file, synced, then renamed into place), so an existing log
   * file always holds at least one complete record: an empty file or one without a newline is
   * damage, never a first append cut short.
   */
  async #create(path: string, line: string): Promise<void> {
    const temporary = `${path}.${process.pid}.tmp`;
    const file = await open(temporary, 'w', 0o600);
    try {
      await file.write(line);
      await file.datasync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  }

  /**
   * The log's last complete record, read from the end of the file (appends stay O(1) however long
   * the log grows). A torn tail left by a killed writer is cut off first (only under the lock).
   */
  async #lastRecord(sessionId: string, path: string): Promise<CheckpointRecord | undefined> {
    let file: FileHandle;
    try {
      file = await open(path, 'r+');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const size = (await file.stat()).size;
      // `buffer` holds the bytes [from, size) of the file, read backwards in chunks.
      let buffer = Buffer.alloc(0);
      let from = size;
      let end = -1;
      let start = -1;
      while (from > 0 && start < 0) {
        const length = Math.min(65_536, from);
        const chunk = Buffer.alloc(length);
        await file.read(chunk, 0, length, from - length);
        buffer = Buffer.concat([chunk, buffer]);
        from -= length;
        if (end < 0) {
          const newline = buffer.lastIndexOf(0x0a);
          if (newline >= 0) end = from + newline;
        }
        if (end >= 0) {
          const before = end - from - 1 >= 0 ? buffer.lastIndexOf(0x0a, end - from - 1) : -1;
          if (before >= 0) start = from + before + 1;
          else if (from === 0) start = 0;
        }
      }
      if (end < 0) throw noRecord(sessionId, path);
      const complete = end + 1;
      if (complete < size) {
        const tail = Buffer.alloc(Math.min(RECORD_START_LENGTH, size - complete));
        await file.read(tail, 0, tail.length, complete);
        if (!isRecordStart(tail)) throw badTail(sessionId, path);
        await file.truncate(complete);
        await file.datasync();
      }
      const line = buffer.subarray(start - from, end - from).toString('utf8');
      return parseLine(sessionId, path, line, 0);
    } finally {
      await file.close();
    }
  }

  async #readLog(sessionId: string, path: string): Promise<CheckpointRecord[]> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    // A last line without its newline is a write cut short by a crash: not part of the log. A log
    // is created whole, so a file with no complete record at all is damage.
    const complete = text.lastIndexOf('\n') + 1;
    if (complete === 0) throw noRecord(sessionId, path);
    if (
      complete < text.length &&
      !isRecordStart(Buffer.from(text.slice(complete, complete + RECORD_START_LENGTH)))
    ) {
      throw badTail(sessionId, path);
    }
    const records: CheckpointRecord[] = [];
    const lines = text.slice(0, complete).split('\n');
    lines.pop();
    for (const [i, line] of lines.entries()) {
      records.push(parseLine(sessionId, path, line, i + 1, records.at(-1)?.step ?? 0));
    }
    const last = records.at(-1);
    if (last !== undefined)
      this.#known.set(sessionId, { size: Buffer.byteLength(text), lastStep: last.step });
    return records;
  }

  async #readLease(sessionId: string): Promise<Lease | null> {
    try {
      const value = JSON.parse(await readFile(this.#path(sessionId, 'lease'), 'utf8')) as unknown;
      const lease = value as Partial<Lease> | null;
      return typeof lease?.owner === 'string' && typeof lease.expires === 'number'
        ? {
            owner: lease.owner,
            expires: lease.expires,
            pid: typeof lease.pid === 'number' ? lease.pid : 0,
            host: typeof lease.host === 'string' ? lease.host : '',
          }
        : null;
    } catch {
      return null;
    }
  }

  async #writeLease(sessionId: string, lease: Lease): Promise<void> {
    const path = this.#path(sessionId, 'lease');
    const temporary = `${path}.${process.pid}.tmp`;
    const file = await open(temporary, 'w', 0o600);
    try {
      await file.write(JSON.stringify(lease));
      await file.datasync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  }

  /** Runs `work` holding the session's lock file; a lock left by a dead process is broken. */
  async #locked<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const lock = this.#path(sessionId, 'lock');
    for (let attempt = 0; ; attempt++) {
      try {
        const file = await open(lock, 'wx', 0o600);
        await file.write(`${process.pid}`);
        await file.close();
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        await this.#breakIfStale(lock);
        await sleep(Math.min(2 + attempt, 25));
      }
    }
    try {
      return await work();
    } finally {
      await unlink(lock).catch(() => undefined);
    }
  }

  async #breakIfStale(lock: string): Promise<void> {
    try {
      const [info, text] = await Promise.all([stat(lock), readFile(lock, 'utf8')]);
      const pid = Number(text);
      const dead = Number.isInteger(pid) && pid > 0 && !isAlive(pid);
      if (dead || Date.now() - info.mtimeMs > STALE_LOCK_MS) await unlink(lock);
    } catch {
      // The lock vanished or is being written: try again.
    }
  }
}

/** A run's lease as the lease file holds it: who, until when, and which process on which host. */
interface Lease {
  owner: string;
  expires: number;
  pid: number;
  host: string;
}

/**
 * True while a lease binds: unexpired, and — when it was taken on this host — its process still
 * alive, so a killed run frees its session at once instead of after the lease's time to live.
 */
function held(lease: Lease): boolean {
  if (lease.expires <= Date.now()) return false;
  if (lease.host === hostname() && lease.pid > 0 && lease.pid !== process.pid)
    return isAlive(lease.pid);
  return true;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
