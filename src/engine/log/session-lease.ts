import { randomUUID } from 'node:crypto';

import type { CheckpointStore } from '../../checkpoint/checkpoint-store.js';
import { hasOwnedLease, type OwnedLease, TAKE_OWNED } from '../../checkpoint/session-list.js';
import { CheckpointError, ConfigError, SessionBusyError } from '../../errors.js';
import type { RunOpening } from './run-opening.js';

/** How long a run's lease lives without renewal: a dead process blocks nobody for longer. */
export const LEASE_TTL_MS = 3_000;
/** How often a run renews its lease (and how old a renewal may be before a step confirms it). */
export const RENEW_EVERY_MS = 1_000;

/**
 * The lease a run holds on its session in a shared store: taken when the run starts, renewed in
 * the background, and confirmed before each model call and each commit. A renewal that fails (the
 * store refuses it: another process took the session; or the store cannot be reached) makes every
 * later `confirm()` throw `CheckpointError`, so the run stops before paying for another model call
 * and never commits over a process that took the session.
 */
export class SessionLease {
  readonly owner = randomUUID();
  readonly #store: CheckpointStore;
  readonly #sessionId: string;
  readonly #clock: () => number;
  #renewedAt = Number.NEGATIVE_INFINITY;
  #lost: { detail: string; cause?: unknown } | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  /** The renewal in flight, awaited by `release()` so that it cannot retake a released lease. */
  #renewing: Promise<void> | undefined;

  constructor(store: CheckpointStore, sessionId: string, clock: () => number = Date.now) {
    this.#store = store;
    this.#sessionId = sessionId;
    this.#clock = clock;
  }

  /** Takes the lease for a run about to take `step`, and renews it until `release()`. */
  async acquire(step: number): Promise<void> {
    this.#lost = undefined;
    const at = this.#clock();
    let acquired: boolean;
    try {
      acquired = await this.#store.acquireLease(this.#sessionId, this.owner, LEASE_TTL_MS);
    } catch (error) {
      throw this.#unreachable(step, error);
    }
    if (!acquired) throw this.#busy();
    this.#held(at);
  }

  /**
   * `acquire(step)`, only when the session belongs to `opening.owner` (else `opening.notOwned()`
   * is thrown and nothing is taken), in one lookup with what `opening` asks to read.
   */
  async acquireOwned(step: number, opening: RunOpening): Promise<OwnedLease> {
    const store = this.#store;
    if (!hasOwnedLease(store)) {
      throw new TypeError(`Session "${this.#sessionId}": its store cannot take a lease by owner.`);
    }
    this.#lost = undefined;
    const at = this.#clock();
    let found: OwnedLease;
    try {
      const id = this.#sessionId;
      found = await store[TAKE_OWNED](id, opening.owner, this.owner, LEASE_TTL_MS, opening.leases);
    } catch (error) {
      throw this.#unreachable(step, error);
    }
    if (found.owner !== opening.owner) throw opening.notOwned();
    if (!found.acquired) throw this.#busy();
    this.#held(at);
    return found;
  }

  #unreachable(step: number, error: unknown): unknown {
    if (isMisuse(error)) return error;
    const reason = error instanceof Error ? error.message : String(error);
    return new CheckpointError(
      this.#sessionId,
      step,
      `its store cannot be reached to take the lease (${reason})`,
      { writing: true, cause: error },
    );
  }

  #busy(): SessionBusyError {
    // Every run holds its lease for LEASE_TTL_MS from its last renewal, which was before now.
    const leaseExpiresBy = new Date(this.#clock() + LEASE_TTL_MS);
    return new SessionBusyError(this.#sessionId, { leaseExpiresBy });
  }

  /** The lease was taken at `at`: renewed from now on until `release()`. */
  #held(at: number): void {
    this.#renewedAt = at;
    this.#heartbeat = setInterval(() => {
      this.#renewing ??= this.#renew().finally(() => {
        this.#renewing = undefined;
      });
    }, RENEW_EVERY_MS);
    this.#heartbeat.unref();
  }

  /**
   * Throws `CheckpointError` when the lease is lost; renews it first when the last renewal is
   * older than `RENEW_EVERY_MS`. `step` is the step the run is about to take.
   */
  async confirm(step: number): Promise<void> {
    if (this.#lost === undefined && this.#clock() - this.#renewedAt >= RENEW_EVERY_MS) {
      await this.#renew();
    }
    const lost = this.#lost;
    if (lost !== undefined) {
      throw new CheckpointError(
        this.#sessionId,
        step,
        lost.detail,
        lost.cause === undefined ? { writing: true } : { writing: true, cause: lost.cause },
      );
    }
  }

  async release(): Promise<void> {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    await this.#renewing;
    await this.#store.releaseLease(this.#sessionId, this.owner).catch(() => undefined);
  }

  /** True when another process holds the session's lease (it is running there). */
  async runningElsewhere(): Promise<boolean> {
    const holder = await this.#store.leaseHolder(this.#sessionId);
    return holder !== null && holder !== this.owner;
  }

  async #renew(): Promise<void> {
    if (this.#lost !== undefined) return;
    const at = this.#clock();
    let renewed: boolean;
    try {
      renewed = await this.#store.acquireLease(this.#sessionId, this.owner, LEASE_TTL_MS);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.#lost = {
        detail: `its store cannot be reached to renew the lease (${reason})`,
        cause: error,
      };
      return;
    }
    if (renewed) this.#renewedAt = at;
    else this.#lost = { detail: 'another process took its lease' };
  }
}

/**
 * An error the store throws for a bad argument (a session id it cannot keep), not for being out
 * of reach: running again cannot help, so it is not reported as an unreachable store.
 */
export function isMisuse(error: unknown): boolean {
  return error instanceof ConfigError || error instanceof TypeError || error instanceof RangeError;
}
