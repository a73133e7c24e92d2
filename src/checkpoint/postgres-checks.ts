import { ConfigError } from '../errors.js';
import type { CheckpointRecord } from './checkpoint-store.js';
import { hasLoneSurrogate } from './store-helpers.js';

// What PostgresCheckpointStore checks before it sends a value: what PostgreSQL cannot hold.

/** The largest value of a PostgreSQL `integer`, the type of the step column. */
export const MAX_STEP = 2_147_483_647;

/** Rejects strings PostgreSQL `text` cannot hold (U+0000) or UTF-8 cannot encode (lone surrogates). */
export function checkText(what: string, value: string): void {
  if (typeof value !== 'string' || value.includes('\u0000') || hasLoneSurrogate(value)) {
    throw new ConfigError(
      `PostgresCheckpointStore: the ${what} ${JSON.stringify(value)} is not a string of ` +
        'well-formed text without U+0000, which PostgreSQL cannot store. Use another one.',
      { path: what === 'session id' ? 'sessionId' : what },
    );
  }
}

export function checkData(sessionId: string, record: CheckpointRecord): void {
  const { step, data } = record;
  if (!Number.isInteger(step) || step < 1 || step > MAX_STEP) {
    throw new RangeError(
      `PostgresCheckpointStore: step ${step} of session ${JSON.stringify(sessionId)} is not an ` +
        `integer from 1 to ${MAX_STEP}. Number steps 1, 2, 3, ...`,
    );
  }
  // UTF-8 would turn a lone surrogate into U+FFFD: refuse rather than change the data.
  if (typeof data !== 'string' || hasLoneSurrogate(data)) {
    throw new TypeError(
      `PostgresCheckpointStore: the data of step ${step} of session ${JSON.stringify(sessionId)} ` +
        'is not well-formed text (a lone UTF-16 surrogate?). Encode it with JSON.stringify.',
    );
  }
}

export function checkTtl(ttlMs: number): void {
  if (typeof ttlMs !== 'number' || !(ttlMs > 0 && ttlMs <= MAX_STEP)) {
    throw new RangeError(
      `PostgresCheckpointStore: a lease lasts from 1 to ${MAX_STEP} ms, got ${ttlMs}. Pass a ` +
        'ttlMs of a few seconds.',
    );
  }
}
