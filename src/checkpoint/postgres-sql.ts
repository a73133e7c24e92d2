// The SQL of PostgresCheckpointStore: its table, and one statement per operation.

export function statements(table: string) {
  const log = `"${table}_checkpoints"`;
  const leases = `"${table}_leases"`;
  return {
    tables: `${log} and ${leases}`,
    // One simple-protocol query runs as one transaction, so the advisory lock covers all three.
    createTables: `
      SELECT pg_advisory_xact_lock(hashtext('baton checkpoint tables ${table}'));
      CREATE TABLE IF NOT EXISTS ${log} (
        session_id text NOT NULL,
        step integer NOT NULL,
        snapshot boolean NOT NULL,
        opens_log boolean NOT NULL,
        data bytea NOT NULL,
        written_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, step)
      );
      CREATE UNIQUE INDEX IF NOT EXISTS "${table}_checkpoints_opening" ON ${log} (session_id)
        WHERE opens_log;
      CREATE TABLE IF NOT EXISTS ${leases} (
        session_id text PRIMARY KEY,
        owner text NOT NULL,
        expires_at timestamptz NOT NULL
      );`,
    // Two writers that both see an empty log may open it at different steps; the unique index on
    // opens_log lets only one of them commit.
    append: `
      WITH head AS (SELECT max(step) AS last FROM ${log} WHERE session_id = $1::text)
      INSERT INTO ${log} (session_id, step, snapshot, opens_log, data)
      SELECT $1::text, $2::integer, $3::boolean, head.last IS NULL, $4::bytea FROM head
      WHERE head.last = $2::integer - 1 OR (head.last IS NULL AND $3::boolean)`,
    readFromSnapshot: `
      SELECT step, snapshot, data FROM ${log}
      WHERE session_id = $1::text AND step <= $2::integer AND step >= (
        SELECT max(step) FROM ${log}
        WHERE session_id = $1::text AND snapshot AND step <= $2::integer)
      ORDER BY step`,
    readRange: `
      SELECT step, snapshot, data FROM ${log}
      WHERE session_id = $1::text AND step > $2::integer AND step <= $3::integer
      ORDER BY step`,
    acquire: `
      INSERT INTO ${leases} AS lease (session_id, owner, expires_at)
      VALUES ($1::text, $2::text, now() + $3::float8 * interval '1 millisecond')
      ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
      WHERE lease.owner = excluded.owner OR lease.expires_at <= now()
      RETURNING owner`,
    release: `DELETE FROM ${leases} WHERE session_id = $1::text AND owner = $2::text`,
    holder: `SELECT owner FROM ${leases} WHERE session_id = $1::text AND expires_at > now()`,
  };
}
