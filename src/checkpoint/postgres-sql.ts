// The SQL of PostgresCheckpointStore: its table, and one statement per operation.

export function statements(table: string) {
  const log = `"${table}_checkpoints"`;
  const leases = `"${table}_leases"`;
  const sessions = `"${table}_sessions"`;
  /** A time in ms since the epoch, as timestamptz (exact, unlike to_timestamp's float seconds). */
  const at = (param: string) =>
    `('epoch'::timestamptz + ${param}::float8 * interval '1 millisecond')`;
  /** The holder of the lease key `param`, null when it is free or expired. */
  const holder = (param: string) =>
    `(SELECT owner FROM ${leases} WHERE session_id = ${param}::text AND expires_at > now())`;
  return {
    tables: `${log}, ${leases} and ${sessions}`,
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
      );
      DO $$ BEGIN
        IF to_regclass('${sessions}') IS NULL THEN
          CREATE TABLE ${sessions} (
            session_id text PRIMARY KEY,
            owner text,
            step integer NOT NULL,
            updated_at timestamptz NOT NULL
          );
          INSERT INTO ${sessions} (session_id, step, updated_at)
          SELECT session_id, max(step), date_trunc('milliseconds', max(written_at))
          FROM ${log} GROUP BY session_id;
        END IF;
      END $$;
      CREATE INDEX IF NOT EXISTS "${table}_sessions_newest" ON ${sessions}
        (updated_at DESC, session_id COLLATE "C");
      CREATE INDEX IF NOT EXISTS "${table}_sessions_owner" ON ${sessions}
        (owner, updated_at DESC, session_id COLLATE "C") WHERE owner IS NOT NULL;`,
    // Two writers that both see an empty log may open it at different steps; the unique index on
    // opens_log lets only one of them commit.
    // The session's row changes in the same statement: the owner ($5) only when the log opens.
    append: `
      WITH head AS (SELECT max(step) AS last FROM ${log} WHERE session_id = $1::text),
      written AS (
        INSERT INTO ${log} (session_id, step, snapshot, opens_log, data)
        SELECT $1::text, $2::integer, $3::boolean, head.last IS NULL, $4::bytea FROM head
        WHERE head.last = $2::integer - 1 OR (head.last IS NULL AND $3::boolean)
        RETURNING step, opens_log)
      INSERT INTO ${sessions} AS s (session_id, owner, step, updated_at)
      SELECT $1::text, CASE WHEN written.opens_log THEN $5::text END, written.step, ${at('$6')}
      FROM written
      ON CONFLICT (session_id) DO UPDATE SET step = excluded.step,
        updated_at = excluded.updated_at, owner = coalesce(excluded.owner, s.owner)`,
    delete: `
      WITH records AS (DELETE FROM ${log} WHERE session_id = $1::text RETURNING 1),
      row AS (DELETE FROM ${sessions} WHERE session_id = $1::text),
      lease AS (DELETE FROM ${leases} WHERE session_id = $1::text)
      SELECT count(*)::integer AS records FROM records`,
    // The owner and last step of $1, and the holder of each lease key in $2 (null when free or
    // expired), in order.
    owner: `
      SELECT s.owner, coalesce(s.step, 0) AS step,
        ARRAY(SELECT lease.owner FROM unnest($2::text[]) WITH ORDINALITY AS key(id, i)
          LEFT JOIN ${leases} AS lease ON lease.session_id = key.id AND lease.expires_at > now()
          ORDER BY key.i) AS holders
      FROM (SELECT 1) AS one LEFT JOIN ${sessions} AS s ON s.session_id = $1::text`,
    // The lease of $1 taken for $3 for $4 ms (as acquire does) only when $1's owner is $2: a row
    // only then, with $1's last step and the holder of each of `keys` lease keys ($5...) as before
    // the statement. (Scalar subqueries: an array of keys costs the planner twice the time.)
    takeOwned: (keys: number) => `
      INSERT INTO ${leases} AS lease (session_id, owner, expires_at)
      SELECT $1::text, $3::text, now() + $4::float8 * interval '1 millisecond' FROM ${sessions} AS s
      WHERE s.session_id = $1::text AND s.owner = $2::text
      ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner,
        expires_at = excluded.expires_at
      WHERE lease.owner = excluded.owner OR lease.expires_at <= now()
      RETURNING (SELECT step FROM ${sessions} WHERE session_id = $1::text) AS step
        ${Array.from({ length: keys }, (_, i) => `, ${holder(`$${i + 5}`)} AS h${i}`).join('')}`,
    // Newest first, ties by id in code point order (COLLATE "C"), after the cursor ($2, $3).
    list: `
      SELECT session_id AS id, owner, step,
        (extract(epoch FROM updated_at) * 1000)::float8 AS at
      FROM ${sessions}
      WHERE ($1::text IS NULL OR owner = $1::text)
        AND ($2::float8 IS NULL OR updated_at < ${at('$2')}
          OR (updated_at = ${at('$2')} AND session_id COLLATE "C" > $3::text))
      ORDER BY updated_at DESC, session_id COLLATE "C"
      LIMIT $4::integer`,
    deleteOlderThan: `
      WITH old AS (DELETE FROM ${sessions} WHERE updated_at < ${at('$1')} RETURNING session_id),
      records AS (DELETE FROM ${log} WHERE session_id IN (SELECT session_id FROM old)),
      lease AS (DELETE FROM ${leases} WHERE session_id IN (SELECT session_id FROM old))
      SELECT count(*)::integer AS deleted FROM old`,
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
