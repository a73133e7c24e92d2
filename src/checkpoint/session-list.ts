import { ConfigError } from '../errors.js';

/** One session as `list()` describes it. */
export interface SessionSummary {
  readonly id: string;
  /** Who the session belongs to, as given when it was created (see `AppendOptions.owner`). */
  readonly owner?: string;
  /** The session's last committed step. */
  readonly step: number;
  /** When its last step was committed (ISO 8601, millisecond precision, UTC). */
  readonly updatedAt: string;
}

/** Which sessions `list()` returns. */
export interface ListOptions {
  /** Only the sessions created with this owner. @default every session */
  readonly owner?: string;
  /** The `cursor` of the page before, to get the next one. @default the first page */
  readonly cursor?: string;
  /** The most sessions in one page, from 1 to 1,000. @default 100 */
  readonly limit?: number;
}

/** A page of `list()`: newest `updatedAt` first, ties by id; `cursor` when more pages follow. */
export interface SessionPage {
  readonly sessions: SessionSummary[];
  readonly cursor?: string;
}

/** Options of `append()`. */
export interface AppendOptions {
  /**
   * The session's owner (e.g. the id of the user it belongs to), recorded when this record opens
   * the session's log and ignored on later records. `list({ owner })` filters by it.
   * @default none
   */
  readonly owner?: string;
}

/**
 * An optional store method, internal (not part of `CheckpointStore`): the owner recorded for one
 * session — the owner `list({ owner })` would list it under — or `undefined` when the session has
 * no owner or does not exist, with its last step; and, read in the same lookup, the holder of each
 * lease key in `leases`, as `leaseHolder()` answers it (`null`: free or expired). `serve()` checks
 * a request's session with it in one lookup instead of listing the principal's sessions (and reads
 * there what a run's start needs); a store without it is asked through `list()` and `leaseHolder()`.
 */
export const OWNER_OF = Symbol.for('baton.ownerOf');

/** What `OWNER_OF` answers. */
export interface OwnerAndLeases {
  readonly owner: string | undefined;
  /** The holder of each of the lease keys asked for, in their order. */
  readonly holders: readonly (string | null)[];
  /** The session's last committed step, as `list()` reports it (0 for none). */
  readonly step: number;
}

/** A store that answers `OWNER_OF`. */
export interface OwnerLookup {
  [OWNER_OF](sessionId: string, leases?: readonly string[]): Promise<OwnerAndLeases>;
}

/** True when `store` answers `OWNER_OF`. */
export function hasOwnerLookup(store: object): store is OwnerLookup {
  return OWNER_OF in store && typeof store[OWNER_OF] === 'function';
}

/**
 * An optional store method, internal like `OWNER_OF`: takes the lease of `sessionId` for `holder`
 * for `ttlMs` (as `acquireLease()` does: free, expired or already `holder`'s) only when the
 * session's owner is `owner`, and answers, read in the same lookup, what `OWNER_OF` answers with
 * `acquired`. The lease is never taken for another principal or a session that does not exist.
 * `serve()` starts a run with it: the owner check, the busy check, a stop asked of the idle session
 * and the run's lease in one round trip, where the run alone takes its lease in one.
 */
export const TAKE_OWNED = Symbol.for('baton.takeOwned');

/** What `TAKE_OWNED` answers: `OWNER_OF`'s answer, and whether the lease is now `holder`'s. */
export interface OwnedLease extends OwnerAndLeases {
  readonly acquired: boolean;
}

/** A store that answers `TAKE_OWNED`. */
export interface OwnedLeaseTaker {
  [TAKE_OWNED](
    sessionId: string,
    owner: string,
    holder: string,
    ttlMs: number,
    leases?: readonly string[],
  ): Promise<OwnedLease>;
}

/** True when `store` answers `TAKE_OWNED`. */
export function hasOwnedLease(store: object): store is OwnedLeaseTaker {
  return TAKE_OWNED in store && typeof store[TAKE_OWNED] === 'function';
}

/** A position in the order of `list()`: past the session `id` updated at `at` (ms). */
export interface ListPosition {
  readonly at: number;
  readonly id: string;
}

/** `list()`'s options once checked. */
export interface ListQuery {
  readonly owner: string | undefined;
  readonly after: ListPosition | undefined;
  readonly limit: number;
}

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

/**
 * Checks `list()`'s options.
 * @throws ConfigError naming the bad option.
 */
export function listQuery(store: string, options: ListOptions = {}): ListQuery {
  const { owner, cursor, limit = DEFAULT_LIST_LIMIT } = options ?? {};
  if (owner !== undefined && typeof owner !== 'string') {
    throw new ConfigError(`${store}.list(): \`owner\` must be a string, got ${typeof owner}.`, {
      path: 'owner',
    });
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new ConfigError(
      `${store}.list(): \`limit\` must be an integer from 1 to ${MAX_LIST_LIMIT}, got ` +
        `${JSON.stringify(limit)}. Leave it out for ${DEFAULT_LIST_LIMIT}.`,
      { path: 'limit' },
    );
  }
  return { owner, after: cursor === undefined ? undefined : decodeCursor(store, cursor), limit };
}

/** The opaque cursor of a position: base64url of `[at, id]`. */
export function encodeCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id]), 'utf8').toString('base64url');
}

function decodeCursor(store: string, cursor: string): ListPosition {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(String(cursor), 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const [at, id]: unknown[] = Array.isArray(value) && value.length === 2 ? value : [];
  if (typeof at !== 'number' || !Number.isSafeInteger(at) || typeof id !== 'string') {
    throw new ConfigError(
      `${store}.list(): the cursor ${JSON.stringify(cursor)} is not one list() returned. Pass ` +
        'the `cursor` of the previous page as it is, or leave it out for the first page.',
      { path: 'cursor' },
    );
  }
  return { at, id };
}

/** Orders ids by code point (as UTF-8 bytes sort, and PostgreSQL's `COLLATE "C"` and Redis do). */
export function compareIds(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    // i < length, so both code points exist.
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(i) ?? 0;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/** The order of `list()`: newest first, then by id. */
export function newestFirst(a: ListPosition, b: ListPosition): number {
  return b.at - a.at || compareIds(a.id, b.id);
}

/** A session as the stores that list in memory keep it. */
export interface ListEntry extends ListPosition {
  readonly owner?: string | undefined;
  readonly step: number;
}

/** The page `query` selects from `entries` (any order): the rule of the stores that sort in memory. */
export function pageOf(entries: readonly ListEntry[], query: ListQuery): SessionPage {
  const { owner, after, limit } = query;
  const chosen = entries
    .filter((e) => owner === undefined || e.owner === owner)
    .filter((e) => after === undefined || newestFirst(after, e) < 0)
    .sort(newestFirst);
  return toPage(chosen.slice(0, limit + 1), limit);
}

/** A page from up to `limit + 1` entries in list order (one more than fits tells a page follows). */
export function toPage(entries: readonly ListEntry[], limit: number): SessionPage {
  const sessions = entries.slice(0, limit).map((e) => ({
    id: e.id,
    ...(e.owner === undefined ? {} : { owner: e.owner }),
    step: e.step,
    updatedAt: new Date(e.at).toISOString(),
  }));
  const last = entries[limit - 1];
  return entries.length > limit && last !== undefined
    ? { sessions, cursor: encodeCursor(last) }
    : { sessions };
}

/**
 * Checks `deleteOlderThan()`'s date and returns its time in ms.
 * @throws ConfigError when it is not a valid Date.
 */
export function cutoffOf(store: string, date: Date): number {
  const at = date instanceof Date ? date.getTime() : Number.NaN;
  if (Number.isNaN(at)) {
    throw new ConfigError(
      `${store}.deleteOlderThan(): pass a valid Date, got ${String(date)}. E.g. ` +
        'new Date(Date.now() - 30 * 24 * 3600 * 1000) for 30 days.',
      { path: 'date' },
    );
  }
  return at;
}

/**
 * Checks an owner given to `append()`.
 * @throws ConfigError when it is not a string.
 */
export function ownerOf(store: string, options: AppendOptions | undefined): string | undefined {
  const owner = options?.owner;
  if (owner !== undefined && typeof owner !== 'string') {
    throw new ConfigError(`${store}.append(): \`owner\` must be a string, got ${typeof owner}.`, {
      path: 'owner',
    });
  }
  return owner;
}
