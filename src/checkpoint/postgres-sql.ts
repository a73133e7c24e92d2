// The SQL of PostgresCheckpointStore: its table, and one statement per operation.

export function statements(table: string) {
  const log = `"${table}_checkpoints"`;
  const leases = `"${table}_leases"`;
  const sessions = `"${table}_sessions"`;
  const fn = functionNames(table);
  /** A time in ms since the epoch, as timestamptz (exact, unlike to_timestamp's float seconds). */
  const at = (param: string) =>
    `('epoch'::timestamptz + ${param}::float8 * interval '1 millisecond')`;
  // Two writers that both see an empty log may open it at different steps; the unique index on
  // opens_log lets only one of them commit.
  // The session's row changes in the same statement: the owner ($5) only when the log opens.
  const appendSql = `WITH head AS (SELECT max(step) AS last FROM ${log} WHERE session_id = $1::text),
      written AS (
        INSERT INTO ${log} (session_id, step, snapshot, opens_log, data)
        SELECT $1::text, $2::integer, $3::boolean, head.last IS NULL, $4::bytea FROM head
        WHERE head.last = $2::integer - 1 OR (head.last IS NULL AND $3::boolean)
        RETURNING step, opens_log)
      INSERT INTO ${sessions} AS s (session_id, owner, step, updated_at)
      SELECT $1::text, CASE WHEN written.opens_log THEN $5::text END, written.step, ${at('$6')}
      FROM written
      ON CONFLICT (session_id) DO UPDATE SET step = excluded.step,
        updated_at = excluded.updated_at, owner = coalesce(excluded.owner, s.owner)`;
  const readFromSnapshotSql = `SELECT step, snapshot, data FROM ${log}
      WHERE session_id = $1::text AND step <= $2::integer AND step >= (
        SELECT max(step) FROM ${log}
        WHERE session_id = $1::text AND snapshot AND step <= $2::integer)
      ORDER BY step`;
  const readRangeSql = `SELECT step, snapshot, data FROM ${log}
      WHERE session_id = $1::text AND step > $2::integer AND step <= $3::integer
      ORDER BY step`;
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
      ${ensureIndex(`${table}_checkpoints_opening`, `UNIQUE INDEX %s ON ${log} (session_id) WHERE opens_log`)}
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
      ${ensureIndex(`${table}_sessions_newest`, `INDEX %s ON ${sessions} (updated_at DESC, session_id COLLATE "C")`)}
      ${ensureIndex(`${table}_sessions_owner`, `INDEX %s ON ${sessions} (owner, updated_at DESC, session_id COLLATE "C") WHERE owner IS NOT NULL`)}
      ${ensureFunction(fn.takeOwned, takeOwnedFunction(fn.takeOwned, leases, sessions))}
      ${ensureFunction(
        fn.append,
        `CREATE FUNCTION ${fn.append}(text, integer, boolean, bytea, text, float8)
        RETURNS integer LANGUAGE plpgsql AS $fn$
        DECLARE n integer;
        BEGIN
          ${appendSql};
          GET DIAGNOSTICS n = ROW_COUNT;
          RETURN n;
        END $fn$;`,
      )}
      ${ensureFunction(fn.readFromSnapshot, readFunction(fn.readFromSnapshot, 'integer', readFromSnapshotSql))}
      ${ensureFunction(fn.readRange, readFunction(fn.readRange, 'integer, integer', readRangeSql))}`,
    // The append, the reads and the owner-checked lease are functions (made with the tables):
    // each connection keeps their statements' plans, where the same SQL sent as a statement is
    // planned at every call (an append costs about 40% less).
    append: `SELECT ${fn.append}($1::text, $2::integer, $3::boolean, $4::bytea, $5::text, $6::float8) AS written`,
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
    // only then, with $1's last step and the holder of each lease key of $5 as before the call.
    takeOwned: `SELECT step, holders FROM ${fn.takeOwned}($1::text, $2::text, $3::text, $4::float8, $5::text[])`,
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
    readFromSnapshot: `SELECT step, snapshot, data FROM ${fn.readFromSnapshot}($1::text, $2::integer)`,
    readRange: `SELECT step, snapshot, data FROM ${fn.readRange}($1::text, $2::integer, $3::integer)`,
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

/**
 * `serve()`'s start of a run (`TAKE_OWNED`) as a function: the lease of `sid` taken for `holder`
 * only when the session's owner is `own`, returning a row only then (the session's last step, and
 * the holder of each lease key of `keys` as before the call, null when free or expired).
 */
function takeOwnedFunction(name: string, leases: string, sessions: string): string {
  return `CREATE FUNCTION ${name}(sid text, own text, holder text, ttl float8, keys text[])
      RETURNS TABLE (step integer, holders text[]) LANGUAGE plpgsql AS $fn$
      #variable_conflict use_column
      DECLARE held text[];
      BEGIN
        held := ARRAY(SELECT lease.owner FROM unnest(keys) WITH ORDINALITY AS key(id, i)
          LEFT JOIN ${leases} AS lease ON lease.session_id = key.id AND lease.expires_at > now()
          ORDER BY key.i);
        INSERT INTO ${leases} AS lease (session_id, owner, expires_at)
        SELECT sid, holder, now() + ttl * interval '1 millisecond' FROM ${sessions} AS s
        WHERE s.session_id = sid AND s.owner = own
        ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner,
          expires_at = excluded.expires_at
        WHERE lease.owner = excluded.owner OR lease.expires_at <= now();
        IF FOUND THEN
          RETURN QUERY SELECT s.step, held FROM ${sessions} AS s WHERE s.session_id = sid;
        END IF;
      END $fn$;`;
}

/**
 * The functions the store makes beside its tables, by what they do. A name carries its version and
 * is made once, never replaced: a change to one is a new name (`_v2`), so processes of both
 * versions can run during an upgrade, and a store started by another database role than the one
 * that made a function (which alone may replace it) uses it as it is.
 */
export function functionNames(table: string) {
  return {
    append: `"${table}_append_v1"`,
    readRange: `"${table}_read_range_v1"`,
    readFromSnapshot: `"${table}_read_from_snapshot_v1"`,
    takeOwned: `"${table}_take_owned_v1"`,
  };
}

/** SQL that drops the tables and functions of the store of `table` (tests, benchmarks). */
export function dropStatement(table: string): string {
  const names = Object.values(functionNames(table)).join(', ');
  const tables = ['checkpoints', 'leases', 'sessions'].map((t) => `"${table}_${t}"`).join(', ');
  return `DROP TABLE IF EXISTS ${tables}; DROP FUNCTION IF EXISTS ${names};`;
}

/** A function running `sql` (a read of the log by `$1` and more parameters of `types`). */
function readFunction(name: string, types: string, sql: string): string {
  return `CREATE FUNCTION ${name}(text, ${types})
      RETURNS TABLE (step integer, snapshot boolean, data bytea) LANGUAGE plpgsql AS $fn$
      #variable_conflict use_column
      BEGIN
        RETURN QUERY ${sql.trim()};
      END $fn$;`;
}

/**
 * Creates index `name` (`definition`, `%s` for its name) unless it exists. `CREATE INDEX IF NOT
 * EXISTS` locks the table (SHARE) before it looks: a process starting would stall every writer of
 * the table, and deadlock with an append whose kept plan locks the tables in another order.
 */
function ensureIndex(name: string, definition: string): string {
  const create = `CREATE ${definition.replace('%s', `"${name}"`)}`;
  return `DO $$ BEGIN
        IF to_regclass('"${name}"') IS NULL THEN ${create}; END IF;
      END $$;`;
}

/** Creates function `name` with `create` (`CREATE FUNCTION ...;`) unless one of that name exists. */
function ensureFunction(name: string, create: string): string {
  return `DO $made$ BEGIN
        IF to_regproc('${name}') IS NULL THEN ${create} END IF;
      END $made$;`;
}
