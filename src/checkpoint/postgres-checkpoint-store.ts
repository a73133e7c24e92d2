import type { Pool } from 'pg';

import { CheckpointError, ConfigError, StoreUnavailableError } from '../errors.js';
import { fieldOf, isRecord } from '../unknown-value.js';
import { checkData, checkText, checkTtl, MAX_STEP } from './postgres-checks.js';
import { statements } from './postgres-sql.js';
import { createPool, isUnreachable, ownerRow, storable } from './postgres-pool.js';
import { describeConnectionString, describePool } from './postgres-target.js';
import type { CheckpointRecord, CheckpointStore, ReadOptions } from './checkpoint-store.js';
import { checkSessionId } from './session-id.js';
import {
  type AppendOptions,
  cutoffOf,
  type ListOptions,
  listQuery,
  type OwnedLease,
  OWNER_OF,
  type OwnerAndLeases,
  ownerOf,
  type SessionPage,
  TAKE_OWNED,
  toPage,
} from './session-list.js';
import { causeText, errorCode, readBound } from './store-helpers.js';

const STORE = 'PostgresCheckpointStore';
/** Names are `<table>_checkpoints`... up to `<table>_read_from_snapshot_v1`: 40 + 22 < 63 bytes. */
const TABLE_PATTERN = /^[a-z_][a-z0-9_]{0,39}$/;

/**
 * The part of a `pg.Pool` the store uses. Any `pg.Pool` (or a compatible pool) fits; it is typed
 * here so that the library's types do not need `@types/pg`.
 */
export interface PostgresPool {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** Options of `PostgresCheckpointStore`: a connection string, or a pool the caller owns. */
export type PostgresCheckpointStoreOptions = (
  | { readonly connectionString: string; readonly pool?: never }
  | { readonly pool: PostgresPool; readonly connectionString?: never }
) & {
  /**
   * The prefix of the store's table names, `<table>_checkpoints` and `<table>_leases`: a lowercase
   * SQL identifier of at most 40 characters. Set `search_path` to use another schema.
   * @default 'baton'
   */
  readonly table?: string;
  /** Gives each commit's time (ms since the epoch), the `updatedAt` of `list()`. @default Date.now */
  readonly clock?: () => number;
};

function isPool(value: unknown): value is PostgresPool {
  return isRecord(value) && typeof value.query === 'function';
}

/**
 * Keeps step logs in PostgreSQL (through `pg`, an optional peer dependency loaded on first use),
 * for several app servers sharing sessions. It creates its two tables if they are missing.
 *
 * - `<table>_checkpoints (session_id, step, snapshot, opens_log, data bytea, written_at)`, keyed
 *   by `(session_id, step)`. `append()` is one `INSERT ... SELECT` that writes only when the log's
 *   last step is `step - 1`, or when the log is empty and the record is a snapshot; the primary key
 *   and a unique index on each log's opening record turn any race it loses into `false`.
 * - `data` is kept as `bytea` holding the string's UTF-8 bytes, because `text` cannot hold U+0000;
 *   `convert_from(data, 'UTF8')` shows it as text.
 * - `<table>_leases (session_id, owner, expires_at)`: expiry is on the server's clock.
 * - `<table>_sessions (session_id, owner, step, updated_at)`: one row per session, written by the
 *   same statement as each append, for `list()` and `deleteOlderThan()`. It is created (and filled
 *   from the log) when missing, so tables of an earlier version keep working.
 * - Functions `<table>_append_v1`, `_read_range_v1`, `_read_from_snapshot_v1`, `_take_owned_v1`
 *   (made when missing) run the append, the reads and `serve()`'s owner-checked lease: each
 *   connection keeps their plans, where the same SQL sent as a statement is planned every time.
 *
 * @example
 * const store = new PostgresCheckpointStore({ connectionString: 'postgres://app@db:5432/app' });
 * const shared = new PostgresCheckpointStore({ pool, table: 'support_desk' }); // your pg.Pool
 * @throws ConfigError when neither `connectionString` nor `pool` is given, or `table` is not a
 * lowercase identifier.
 */
export class PostgresCheckpointStore implements CheckpointStore {
  /** Every machine reaching the database sees the same sessions. */
  readonly shared = true;
  /** Where the server is, for error messages: host, port and database, never credentials. */
  readonly #target: string;
  readonly #connectionString: string | undefined;
  readonly #sql: ReturnType<typeof statements>;
  readonly #clock: () => number;
  #pool: PostgresPool | undefined;
  #ownPool: Pool | undefined;
  #ready: Promise<PostgresPool> | undefined;
  #closed = false;

  constructor(options: PostgresCheckpointStoreOptions) {
    // Read as `unknown`: a caller in plain JavaScript may pass anything.
    const given: {
      connectionString?: unknown;
      pool?: unknown;
      table?: unknown;
      clock?: () => number;
    } = options ?? {};
    this.#clock = given.clock ?? Date.now;
    const table = given.table ?? 'baton';
    if (typeof table !== 'string' || !TABLE_PATTERN.test(table)) {
      throw new ConfigError(
        `PostgresCheckpointStore: \`table\` must be a lowercase SQL identifier of at most 40 ` +
          `characters (a-z, 0-9, _), got ${JSON.stringify(table)}. Pick a name like "baton".`,
        { path: 'table' },
      );
    }
    this.#sql = statements(table);
    if (given.pool !== undefined) {
      const pool = given.pool;
      if (!isPool(pool) || given.connectionString !== undefined) {
        throw new ConfigError(
          'PostgresCheckpointStore: `pool` must be a pg.Pool, given without `connectionString`. ' +
            'Pass one of the two.',
          { path: 'pool' },
        );
      }
      this.#pool = pool;
      this.#target = describePool(pool);
    } else if (typeof given.connectionString === 'string' && given.connectionString !== '') {
      this.#connectionString = given.connectionString;
      this.#target = describeConnectionString(given.connectionString);
    } else {
      throw new ConfigError(
        'PostgresCheckpointStore needs a `connectionString` (e.g. ' +
          '"postgres://user@localhost:5432/app") or a `pool` (a pg.Pool).',
        { path: 'connectionString' },
      );
    }
  }

  async append(
    sessionId: string,
    record: CheckpointRecord,
    options?: AppendOptions,
  ): Promise<boolean> {
    checkSessionId(STORE, sessionId);
    checkText('session id', sessionId);
    checkData(sessionId, record);
    const owner = ownerOf(STORE, options);
    if (owner !== undefined) checkText('owner', owner);
    const pool = await this.#connect();
    const data = Buffer.from(record.data, 'utf8');
    try {
      const values = [
        sessionId,
        record.step,
        record.snapshot,
        data,
        owner ?? null,
        Math.round(this.#clock()),
      ];
      const { rows } = await pool.query(this.#sql.append, values);
      return Number(fieldOf(rows[0], 'written')) === 1;
    } catch (error) {
      if (errorCode(error) === '23505') return false; // another writer took this step first
      throw this.#failure(
        `append step ${record.step} of session ${JSON.stringify(sessionId)}`,
        error,
      );
    }
  }

  async read(sessionId: string, options: ReadOptions = {}): Promise<CheckpointRecord[]> {
    checkSessionId(STORE, sessionId);
    checkText('session id', sessionId);
    const from = options.from ?? 'snapshot';
    const upTo = readBound(STORE, options.upTo ?? MAX_STEP, 'upTo', MAX_STEP);
    const pool = await this.#connect();
    const [text, values] =
      from === 'snapshot'
        ? [this.#sql.readFromSnapshot, [sessionId, upTo]]
        : [
            this.#sql.readRange,
            [
              sessionId,
              from === 'start' ? 0 : readBound(STORE, from.after, 'after', MAX_STEP),
              upTo,
            ],
          ];
    let rows: unknown[];
    try {
      rows = (await pool.query(text, values)).rows;
    } catch (error) {
      throw this.#failure(`read session ${JSON.stringify(sessionId)}`, error);
    }
    return rows.map((row) => {
      const step = Number(fieldOf(row, 'step'));
      const data = fieldOf(row, 'data');
      if (!Buffer.isBuffer(data)) {
        const detail = 'its data does not come back as bytea (does the pool parse bytea itself?)';
        throw new CheckpointError(sessionId, step, detail);
      }
      return { step, snapshot: fieldOf(row, 'snapshot') === true, data: data.toString('utf8') };
    });
  }

  async acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    checkSessionId(STORE, sessionId);
    checkText('session id', sessionId);
    checkText('lease owner', owner);
    checkTtl(ttlMs);
    const result = await this.#query('take a lease', this.#sql.acquire, [sessionId, owner, ttlMs]);
    return result.rowCount === 1;
  }

  async releaseLease(sessionId: string, owner: string): Promise<void> {
    checkSessionId(STORE, sessionId);
    checkText('session id', sessionId);
    checkText('lease owner', owner);
    await this.#query('release a lease', this.#sql.release, [sessionId, owner]);
  }

  async leaseHolder(sessionId: string): Promise<string | null> {
    checkSessionId(STORE, sessionId);
    checkText('session id', sessionId);
    const { rows } = await this.#query('read a lease', this.#sql.holder, [sessionId]);
    const owner = fieldOf(rows[0], 'owner');
    return typeof owner === 'string' ? owner : null;
  }

  async delete(sessionId: string): Promise<boolean> {
    checkSessionId(STORE, sessionId);
    checkText('session id', sessionId);
    const action = `delete session ${JSON.stringify(sessionId)}`;
    const { rows } = await this.#query(action, this.#sql.delete, [sessionId]);
    return Number(fieldOf(rows[0], 'records')) > 0;
  }

  async list(options?: ListOptions): Promise<SessionPage> {
    const { owner, after, limit } = listQuery(STORE, options);
    if (owner !== undefined) checkText('owner', owner);
    if (after !== undefined) checkText('cursor id', after.id);
    const values = [owner ?? null, after?.at ?? null, after?.id ?? null, limit + 1];
    const { rows } = await this.#query('list sessions', this.#sql.list, values);
    const entries = rows.map((row) => {
      const owner = fieldOf(row, 'owner');
      return {
        id: String(fieldOf(row, 'id')),
        owner: typeof owner === 'string' ? owner : undefined,
        step: Number(fieldOf(row, 'step')),
        at: Number(fieldOf(row, 'at')),
      };
    });
    return toPage(entries, limit);
  }

  /** @internal `serve()`'s owner check (`OWNER_OF`): owner, last step and lease holders at once. */
  async [OWNER_OF](sessionId: string, leases: readonly string[] = []): Promise<OwnerAndLeases> {
    const values = [storable(sessionId), leases.map(storable)];
    const { rows } = await this.#query('read an owner', this.#sql.owner, values);
    return ownerRow(rows[0], leases);
  }

  /** @internal a served run's start (`TAKE_OWNED`): its lease, only for the session's owner. */
  async [TAKE_OWNED](
    sessionId: string,
    owner: string,
    holder: string,
    ttlMs: number,
    leases: readonly string[] = [],
  ): Promise<OwnedLease> {
    checkText('lease owner', holder);
    checkTtl(ttlMs);
    const [id, by, keys] = [storable(sessionId), storable(owner), leases.map(storable)];
    const values = [id, by, storable(holder), ttlMs, keys];
    const [row] = (await this.#query('take a lease', this.#sql.takeOwned, values)).rows;
    // No row: not taken. Whether for want of the owner or for a lease held, the lookup tells.
    if (row === undefined) return { ...(await this[OWNER_OF](sessionId, leases)), acquired: false };
    return { ...ownerRow(row, leases), owner, acquired: true };
  }

  async deleteOlderThan(date: Date): Promise<number> {
    const cutoff = cutoffOf(STORE, date);
    const { rows } = await this.#query('delete old sessions', this.#sql.deleteOlderThan, [cutoff]);
    return Number(fieldOf(rows[0], 'deleted'));
  }

  /** Ends the pool the store made from `connectionString`; a pool passed in is left open. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#ready?.catch(() => undefined);
    await this.#ownPool?.end();
  }

  async #query(action: string, text: string, values: unknown[]) {
    const pool = await this.#connect();
    try {
      return await pool.query(text, values);
    } catch (error) {
      throw this.#failure(action, error);
    }
  }

  /** The pool, once its tables exist; a failed attempt is retried by the next call. */
  #connect(): Promise<PostgresPool> {
    if (this.#closed) {
      return Promise.reject(
        new Error(
          'PostgresCheckpointStore is closed. Create a new store to use the database again.',
        ),
      );
    }
    this.#ready ??= this.#setUp().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #setUp(): Promise<PostgresPool> {
    const pool = this.#pool ?? (await this.#createPool());
    // Two processes creating the tables at once can collide on pg_type's unique index even with
    // IF NOT EXISTS; the statement's advisory lock prevents that, and the retry covers other writers.
    for (let attempt = 1; ; attempt++) {
      try {
        await pool.query(this.#sql.createTables);
        return pool;
      } catch (error) {
        if (attempt < 3 && ['23505', '42P07', '42710'].includes(errorCode(error) ?? '')) continue;
        throw this.#failure('create its tables', error);
      }
    }
  }

  async #createPool(): Promise<Pool> {
    const pool = await createPool(this.#connectionString);
    this.#ownPool = pool;
    this.#pool = pool;
    return pool;
  }

  #failure(action: string, cause: unknown): Error {
    const detail = causeText(cause);
    if (isUnreachable(cause)) {
      const message =
        `PostgresCheckpointStore cannot connect to PostgreSQL at ${this.#target}: ${detail}. ` +
        'Check that the server is running and reachable there, and the connection settings.';
      return new StoreUnavailableError(STORE, this.#target, message, { cause });
    }
    const message =
      `PostgresCheckpointStore cannot ${action} on PostgreSQL at ${this.#target}: ${detail}. ` +
      `Check the server's log and the user's rights on ${this.#sql.tables}.`;
    return new Error(message, { cause });
  }
}
