import type { Pool } from 'pg';

import { ConfigError } from '../errors.js';
import { fieldOf } from '../unknown-value.js';
import type { OwnerAndLeases } from './session-list.js';
import { causeText, errorCode } from './store-helpers.js';

// PostgresCheckpointStore's pool of its own, and the rows of its owner lookups.

/** A pool for `connectionString`, `pg` loaded on first use. @throws ConfigError without `pg`. */
export async function createPool(connectionString: string | undefined): Promise<Pool> {
  let pg: { Pool: typeof Pool };
  try {
    pg = await import('pg');
  } catch (error) {
    throw new ConfigError(
      'PostgresCheckpointStore needs the `pg` package, which is not installed. Run `npm install pg`.',
      { cause: error },
    );
  }
  const pool = new pg.Pool({
    connectionString,
    connectionTimeoutMillis: 10_000,
    allowExitOnIdle: true,
  });
  // An idle connection the server drops emits 'error' on the pool; without a listener that
  // would crash the process. The next query reconnects or reports the failure.
  pool.on('error', () => undefined);
  return pool;
}

/** An id as a query parameter: one holding U+0000 cannot be stored, so no row has it (null). */
export function storable(id: string): string | null {
  return id.includes('\u0000') ? null : id;
}

/** What `OWNER_OF` answers, from the row of the owner lookup (`leases`: the keys it read). */
export function ownerRow(row: unknown, leases: readonly string[]): OwnerAndLeases {
  const [owner, holders, step] = ['owner', 'holders', 'step'].map((k) => fieldOf(row, k));
  const held = (i: number) => (Array.isArray(holders) ? holders[i] : null);
  return {
    owner: typeof owner === 'string' ? owner : undefined,
    holders: leases.map((_, i) => (typeof held(i) === 'string' ? held(i) : null)),
    step: Number(step ?? 0),
  };
}

/** Error codes (Node's and SQLSTATE classes 08, 28, 3D, 57P) that mean the server is out of reach. */
const UNREACHABLE = /^(E[A-Z]+|08...|28...|3D000|57P0.)$/;

/**
 * True when `cause` says the server could not be reached: by its code, or by its text for the
 * client's own failures (a connection that timed out or was cut). A server's answer has its
 * SQLSTATE: a lock or statement timeout (55P03, 57014) is the server refusing, not out of reach.
 */
export function isUnreachable(cause: unknown): boolean {
  const code = errorCode(cause);
  if (code !== undefined) return UNREACHABLE.test(code);
  return /timeout|terminated/i.test(causeText(cause));
}
