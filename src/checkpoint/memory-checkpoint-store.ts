import type { CheckpointRecord, CheckpointStore, ReadOptions } from './checkpoint-store.js';
import { continuesLog, readWindow } from './read-window.js';
import { checkSessionId } from './session-id.js';

const STORE = 'MemoryCheckpointStore';

/**
 * Keeps step logs in this process's memory: for tests, and for many sessions that need no
 * persistence but want checkpoints, time travel and leases. Records are copied in and out, so it
 * behaves as a real store does.
 *
 * @example new HandoffBuilder({ participants }).coordinator(triage).withCheckpointing(new MemoryCheckpointStore())
 */
export class MemoryCheckpointStore implements CheckpointStore {
  readonly #logs = new Map<string, CheckpointRecord[]>();
  readonly #leases = new Map<string, { owner: string; expires: number }>();
  readonly #clock: () => number;

  constructor(options: { clock?: () => number } = {}) {
    this.#clock = options.clock ?? Date.now;
  }

  async append(sessionId: string, record: CheckpointRecord): Promise<boolean> {
    checkSessionId(STORE, sessionId);
    const log = this.#logs.get(sessionId) ?? [];
    if (!continuesLog(log.at(-1), record)) return false;
    log.push({ step: record.step, snapshot: record.snapshot, data: record.data });
    this.#logs.set(sessionId, log);
    return true;
  }

  async read(sessionId: string, options?: ReadOptions): Promise<CheckpointRecord[]> {
    checkSessionId(STORE, sessionId);
    return readWindow(this.#logs.get(sessionId) ?? [], options).map((r) => ({ ...r }));
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

  async close(): Promise<void> {}
}
