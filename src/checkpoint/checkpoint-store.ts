/**
 * One entry of a session's append-only step log. The store keeps `data` as it is given (encoded
 * JSON text: the step's patches, or a whole snapshot of the session) and never interprets it.
 */
export interface CheckpointRecord {
  /** The step number: 1, 2, 3, ... with no gaps after the session's first record. */
  readonly step: number;
  /** True when `data` holds the whole session state; loading starts from the latest such record. */
  readonly snapshot: boolean;
  /** The encoded record (see `log-codec.ts`); opaque to the store. */
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
   * Resolves to `false` (and writes nothing) otherwise: another writer got there first.
   */
  append(sessionId: string, record: CheckpointRecord): Promise<boolean>;
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
  /** Releases connections and handles the store opened itself (not ones passed in). */
  close(): Promise<void>;
}
