import type { CheckpointRecord, CheckpointStore, ReadOptions } from './checkpoint-store.js';
import { continuesLog, readWindow } from './read-window.js';
import { checkSessionId } from './session-id.js';
import {
  type AppendOptions,
  cutoffOf,
  type ListOptions,
  listQuery,
  OWNER_OF,
  type OwnedLease,
  type OwnerAndLeases,
  ownerOf,
  pageOf,
  type SessionPage,
  TAKE_OWNED,
} from './session-list.js';

const STORE = 'MemoryCheckpointStore';

/** A session's log with its owner and the time (ms) of its last append. */
interface StoredSession {
  readonly log: CheckpointRecord[];
  readonly owner: string | undefined;
  at: number;
}

/**
 * Keeps step logs in this process's memory: for tests, and for many sessions that need no
 * persistence but want checkpoints, time travel and leases. Records are copied in and out, so it
 * behaves as a real store does.
 *
 * @example new HandoffBuilder({ participants }).coordinator(triage).withCheckpointing(new MemoryCheckpointStore())
 */
export class MemoryCheckpointStore implements CheckpointStore {
  readonly #sessions = new Map<string, StoredSession>();
  readonly #leases = new Map<string, { owner: string; expires: number }>();
  readonly #clock: () => number;

  /** `clock` (ms since the epoch) times leases and `updatedAt`. @default Date.now */
  constructor(options: { clock?: () => number } = {}) {
    this.#clock = options.clock ?? Date.now;
  }

  async append(
    sessionId: string,
    record: CheckpointRecord,
    options?: AppendOptions,
  ): Promise<boolean> {
    checkSessionId(STORE, sessionId);
    const owner = ownerOf(STORE, options);
    const session = this.#sessions.get(sessionId) ?? { log: [], owner, at: 0 };
    if (!continuesLog(session.log.at(-1), record)) return false;
    session.log.push({ step: record.step, snapshot: record.snapshot, data: record.data });
    session.at = Math.round(this.#clock());
    this.#sessions.set(sessionId, session);
    return true;
  }

  async read(sessionId: string, options?: ReadOptions): Promise<CheckpointRecord[]> {
    checkSessionId(STORE, sessionId);
    const log = this.#sessions.get(sessionId)?.log ?? [];
    return readWindow(log, options).map((r) => ({ ...r }));
  }

  async acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    checkSessionId(STORE, sessionId);
    const now = this.#clock();
    const lease = this.#leases.get(sessionId);
    if (lease !== undefined && lease.owner !== owner && lease.expires > now) return false;
    this.#leases.set(sessionId, { owner, expires: now + ttlMs });
    return true;
  }

  async releaseLease(sessionId: string, owner: string): Promise<void> {
    checkSessionId(STORE, sessionId);
    if (this.#leases.get(sessionId)?.owner === owner) this.#leases.delete(sessionId);
  }

  async leaseHolder(sessionId: string): Promise<string | null> {
    checkSessionId(STORE, sessionId);
    const lease = this.#leases.get(sessionId);
    return lease !== undefined && lease.expires > this.#clock() ? lease.owner : null;
  }

  async delete(sessionId: string): Promise<boolean> {
    checkSessionId(STORE, sessionId);
    this.#leases.delete(sessionId);
    return this.#sessions.delete(sessionId);
  }

  async list(options?: ListOptions): Promise<SessionPage> {
    const query = listQuery(STORE, options);
    const entries = [...this.#sessions].map(([id, s]) => ({
      id,
      owner: s.owner,
      step: s.log.at(-1)?.step ?? 0,
      at: s.at,
    }));
    return pageOf(entries, query);
  }

  /** @internal `serve()`'s owner check (`OWNER_OF`): owner, last step and lease holders at once. */
  async [OWNER_OF](sessionId: string, leases: readonly string[] = []): Promise<OwnerAndLeases> {
    return this.#ownerOf(sessionId, leases);
  }

  #ownerOf(sessionId: string, leases: readonly string[]): OwnerAndLeases {
    const now = this.#clock();
    const holders = leases.map((key) => {
      const lease = this.#leases.get(key);
      return lease !== undefined && lease.expires > now ? lease.owner : null;
    });
    const session = this.#sessions.get(sessionId);
    return { owner: session?.owner, holders, step: session?.log.at(-1)?.step ?? 0 };
  }

  /** @internal a served run's start (`TAKE_OWNED`): its lease, only for the session's owner. */
  async [TAKE_OWNED](
    sessionId: string,
    owner: string,
    holder: string,
    ttlMs: number,
    leases: readonly string[] = [],
  ): Promise<OwnedLease> {
    // No await between the owner's read and the lease's: the two are one step, as in one statement.
    const found = this.#ownerOf(sessionId, leases);
    const now = this.#clock();
    const lease = this.#leases.get(sessionId);
    const free = lease === undefined || lease.owner === holder || lease.expires <= now;
    const acquired = found.owner === owner && free;
    if (acquired) this.#leases.set(sessionId, { owner: holder, expires: now + ttlMs });
    return { ...found, acquired };
  }

  async deleteOlderThan(date: Date): Promise<number> {
    const cutoff = cutoffOf(STORE, date);
    let deleted = 0;
    for (const [id, session] of this.#sessions) {
      if (session.at >= cutoff) continue;
      this.#sessions.delete(id);
      this.#leases.delete(id);
      deleted++;
    }
    return deleted;
  }

  async close(): Promise<void> {}
}
