import { fieldOf } from '../unknown-value.js';

/**
 * Helpers the database-backed stores (Postgres, Redis) share: reading a driver's error and
 * checking the bounds of `read()`.
 */

/** The cause's message; Node's AggregateError (IPv4 and IPv6 both refused) has an empty one. */
export function causeText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message !== '') return error.message.replace(/\.$/, '');
  const inner = firstInner(error);
  if (inner !== undefined) return causeText(inner);
  return errorCode(error) ?? error.name;
}

/** A driver error's `code` (e.g. `ECONNREFUSED`, `57P01`), looking into an AggregateError. */
export function errorCode(error: unknown): string | undefined {
  const value = fieldOf(error, 'code');
  if (typeof value === 'string') return value;
  const inner = firstInner(error);
  return inner === undefined ? undefined : errorCode(inner);
}

/** The first of an AggregateError's `errors`. */
function firstInner(error: unknown): unknown {
  const errors = fieldOf(error, 'errors');
  return Array.isArray(errors) ? errors[0] : undefined;
}

/**
 * A bound of `read()` (`after`, `upTo`) as an integer from 0 to `max`.
 * @throws TypeError naming the store and the option when it is not a number.
 */
export function readBound(store: string, value: number, name: string, max: number): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new TypeError(`${store}.read(): \`${name}\` must be a number, got ${value}.`);
  }
  return Math.min(Math.max(Math.floor(value), 0), max);
}

/** True when `value` holds a lone UTF-16 surrogate, which UTF-8 cannot encode. */
export function hasLoneSurrogate(value: string): boolean {
  return /\p{Cs}/u.test(value);
}
