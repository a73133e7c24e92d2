import { isRecord } from '../unknown-value.js';

/** A job attempt as pg-boss fences it: the job, and how many times it was retried. */
export interface JobAttempt {
  readonly id: string;
  readonly retryCount: number;
}

/** What the watch needs of the queue engine and of the store. */
export interface HandOverTarget {
  /** The pg-boss queue. */
  readonly queue: string;
  /** Runs one SQL statement on pg-boss's database; resolves to its rows. */
  query(text: string, values: unknown[]): Promise<unknown[]>;
  /** Fails this attempt of the job (pg-boss retries it), unless it was settled or retried since. */
  fail(attempt: JobAttempt): Promise<void>;
  /** True while some process holds the session's lease (it is running there). */
  running(sessionId: string): Promise<boolean>;
  /** True for an attempt this process is making. */
  mine(attempt: JobAttempt): boolean;
  /** How long a job's heartbeat may stand still before the job is handed over. */
  readonly seconds: number;
}

/** How often a worker looks for the jobs of workers that died. */
const WATCH_MS = 1000;
/** pg-boss's schema (it makes its tables there unless told otherwise). */
const SCHEMA = 'pgboss';
/** PostgreSQL's "undefined_table": a PgBoss given in another schema; its own check does it. */
const UNDEFINED_TABLE = '42P01';

/**
 * The active jobs of `queue` whose heartbeat stood still for `$2` seconds, by the database's
 * clock (the one that wrote it). The heartbeat of a live worker moves every second; a job without
 * `heartbeat_seconds` has none, and its stillness says nothing.
 */
const STALE_JOBS = `SELECT id, retry_count AS "retryCount", singleton_key AS "sessionId"
FROM ${SCHEMA}.job
WHERE name = $1 AND state = 'active' AND heartbeat_seconds IS NOT NULL
  AND heartbeat_on < ${SCHEMA}.job_now() - $2 * interval '1 second'
LIMIT 100`;

/**
 * Hands the job of a worker that died to the live ones, sooner than pg-boss's own
 * heartbeat check (10 s at least, on its maintenance schedule). Every second a worker looks for
 * active jobs whose heartbeat — refreshed every second by the worker that holds the job — stood
 * still for `seconds`, and fails (pg-boss then retries) each one whose session nobody holds the
 * lease of: both signs of a live holder are gone. The fail is fenced to the attempt seen, so a job
 * settled or retried meanwhile is left alone; Baton's lease keeps one process on a session even
 * if a worker that only stalled comes back. Returns a function that stops the watch.
 */
export function watchForDeadWorkers(target: HandOverTarget): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();
  const tick = () => {
    pass = handOver(target)
      .then(
        (goOn) => {
          if (!goOn) stopped = true;
        },
        () => {},
      )
      .finally(() => {
        if (!stopped) schedule();
      });
  };
  const schedule = () => {
    timer = setTimeout(tick, WATCH_MS);
    timer.unref();
  };
  schedule();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await pass;
  };
}

/** One look; resolves to false when the watch cannot work here (pg-boss in another schema). */
async function handOver(target: HandOverTarget): Promise<boolean> {
  let rows: unknown[];
  try {
    rows = await target.query(STALE_JOBS, [target.queue, target.seconds]);
  } catch (error) {
    return !(isRecord(error) && error.code === UNDEFINED_TABLE);
  }
  for (const row of rows) {
    if (!isRecord(row) || typeof row.id !== 'string' || typeof row.sessionId !== 'string') continue;
    const attempt = { id: row.id, retryCount: Number(row.retryCount) };
    if (target.mine(attempt)) continue;
    try {
      if (await target.running(row.sessionId)) continue;
      await target.fail(attempt);
    } catch {
      // The store or the queue is out of reach: the next look tries again.
    }
  }
  return true;
}
