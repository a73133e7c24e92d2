import { createHash } from 'node:crypto';

import { CheckpointError } from '../errors.js';
import { fieldOf } from '../unknown-value.js';
import type { CheckpointStore } from './checkpoint-store.js';
import { MAX_SESSION_ID_LENGTH } from './session-id.js';

/** Lost races before an add gives up (each lost race means another writer's add went in). */
const MAX_ATTEMPTS = 10_000;

/**
 * Counters of money spent (a tenant's day), kept in a checkpoint store so that every
 * process and worker sharing the store shares them. A counter is a log of its own in the store,
 * each record the new total as a snapshot, written with the store's compare-and-append: a write
 * that lost a race is retried on the new total, so two spenders never both take the last dollar.
 * That append is one atomic statement in PostgreSQL and one script in Redis, a compare-and-set
 * in the file store and the memory store. Amounts are whole micro-dollars, so sums are exact.
 */
export class SpendCounters {
  readonly #store: CheckpointStore;

  constructor(store: CheckpointStore) {
    this.#store = store;
  }

  /** The store log of counter `key`, a log id no session uses (`~` leads no session id here). */
  static logOf(key: string): string {
    const id = `~spend:${key}`;
    if (id.length <= MAX_SESSION_ID_LENGTH) return id;
    return `~spend:${createHash('sha256').update(key).digest('hex')}`;
  }

  /** The counter's total in micro-dollars (0 for a counter never added to). */
  async total(key: string): Promise<number> {
    return (await this.#last(SpendCounters.logOf(key))).total;
  }

  /**
   * Adds `microUsd` (a whole number, negative to give back) to counter `key`, unless it is positive
   * and the total would pass `capMicroUsd`. Resolves to whether it was added.
   */
  async add(key: string, microUsd: number, capMicroUsd?: number): Promise<boolean> {
    const log = SpendCounters.logOf(key);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const { step, total } = await this.#last(log);
      const next = total + microUsd;
      if (microUsd > 0 && capMicroUsd !== undefined && next > capMicroUsd) return false;
      const record = {
        step: step + 1,
        snapshot: true,
        data: JSON.stringify({ totalMicroUsd: next }),
      };
      if (await this.#store.append(log, record)) return true;
    }
    throw new CheckpointError(
      log,
      0,
      `${MAX_ATTEMPTS} writers in a row won the race to the spend counter; try again.`,
    );
  }

  async #last(log: string): Promise<{ step: number; total: number }> {
    const records = await this.#store.read(log, { from: 'snapshot' });
    const last = records.at(-1);
    if (last === undefined) return { step: 0, total: 0 };
    let total: unknown;
    try {
      total = fieldOf(JSON.parse(last.data), 'totalMicroUsd');
    } catch {
      total = undefined;
    }
    if (typeof total !== 'number' || !Number.isSafeInteger(total)) {
      throw new CheckpointError(log, last.step, 'the spend counter record holds no total.');
    }
    return { step: last.step, total };
  }
}
