import type { Pool } from 'pg';

import { ConfigError } from '../errors.js';
import { fieldOf } from '../unknown-value.js';
import type { OwnedLease, OwnerAndLeases } from './session-list.js';

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

/** What `TAKE_OWNED` answers from the row of a lease taken for `owner` (its columns h0, h1...). */
export function takenRow(row: unknown, owner: string, leases: readonly string[]): OwnedLease {
  const holders = leases.map((_, i) => fieldOf(row, `h${i}`));
  const held = holders.map((h) => (typeof h === 'string' ? h : null));
  return { owner, holders: held, step: Number(fieldOf(row, 'step')), acquired: true };
}
