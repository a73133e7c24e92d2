import type { AppendOptions, ListOptions, SessionPage } from './session-list.js';

/**
 * One entry of a session's append-only step log. The store keeps `data` as it is given (encoded
 * JSON text: what the step changed, or a whole snapshot of the session) and never interprets it.
 */
export interface CheckpointRecord {
  /** The step number: 1, 2, 3, ... with no gaps after the session's first record. */
  readonly step: number;
  /** True when `data` holds the whole session state; loading starts from the latest such record. */
  readonly snapshot: boolean;
  /** The encoded record (see `engine/log/session-log.ts`); opaque to the store. */
  readonly data: string;
}

/** Which records `read()` returns. */
export interface ReadOptions {
  /**
   * `'snapshot'` (default): from the latest snapshot at or before `upTo`. A number: only records
   * with a step greater than it (to catch up with steps another process committed).
   */
  readonly from?: 'snapshot' | 'start' | { readonly after: number };
  /** The last step to return. @default the session's last step */
  readonly upTo?: number;
}

/**
 * Where sessions are checkpointed: an ordered log of step records per session, appended with
 * compare-and-append on the step number (the optimistic-concurrency token), and a short lease
 * that tells the processes sharing the store which of them is running a session.
 *
 * Every method is safe to call concurrently from many processes. Implementations:
 * `MemoryCheckpointStore`, `FileCheckpointStore`, `PostgresCheckpointStore`, `RedisCheckpointStore`.
 */
export interface CheckpointStore {
  /**
   * Appends `record` to the session's log, atomically, if and only if it continues the log:
   * the log is empty and the record is a snapshot, or the log's last step is `record.step - 1`.
   * Resolves to `false` (and writes nothing) otherwise: another writer got there first. The
   * record's commit time becomes the session's `updatedAt`; `options.owner` is recorded with the
   * record that opens the log.
   */
  append(sessionId: string, record: CheckpointRecord, options?: AppendOptions): Promise<boolean>;
  /** The session's records in step order (see `ReadOptions`); `[]` for an unknown session. */
  read(sessionId: string, options?: ReadOptions): Promise<CheckpointRecord[]>;
  /**
   * Takes or renews the session's lease for `owner` for `ttlMs` milliseconds. Resolves to `false`
   * when another owner holds an unexpired lease.
   */
  acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up if `owner` holds it. */
  releaseLease(sessionId: string, owner: string): Promise<void>;
  /** The owner of the session's unexpired lease, or `null`. */
  leaseHolder(sessionId: string): Promise<string | null>;
  /**
   * Deletes the session: its log, its lease and its entry in `list()`. The id then names a new,
   * empty session. Resolves to `true` when the session had a log. It does not check the lease:
   * `session.delete()` takes it first.
   */
  delete(sessionId: string): Promise<boolean>;
  /** A page of the sessions, newest `updatedAt` first (ties by id); see `ListOptions`. */
  list(options?: ListOptions): Promise<SessionPage>;
  /** Deletes (as `delete()` does) every session last updated before `date`; resolves to how many. */
  deleteOlderThan(date: Date): Promise<number>;
  /** Releases connections and handles the store opened itself (not ones passed in). */
  close(): Promise<void>;
  /**
   * `true` when every machine that opens the store the same way sees the same sessions (a
   * database server): what workers and a queueing `serve()` need. Absent or `false`: only this
   * process sees them.
   */
  readonly shared?: boolean;
}
