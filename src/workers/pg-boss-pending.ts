import type { PgBossLike } from './pg-boss-dispatcher.js';

/** How many of a session's jobs `pendingJob()` reads at once. */
const PAGE = 1000;
/** The states of a job that is not done: waiting, to be retried, or held (running, or dead). */
const UNFINISHED = new Set(['created', 'retry', 'active']);

/**
 * True while a job of the session (`key`) on queue `name` is not done (`Dispatcher.pending()`).
 * One waiting or to be retried is one read of an index. A held one (`held`) is not in that
 * index: the session's jobs are then read oldest first, the done ones (kept until pg-boss deletes
 * them) before the one held, if any — a job whose worker died stays active until it is handed
 * over or its heartbeat expires, and is retried (one whose retries are spent, `failed`, is done).
 * Without `findJobs()` (an older pg-boss): false, and servers follow a run only while its lease
 * is held.
 */
export async function pendingJob(
  boss: PgBossLike,
  name: string,
  key: string,
  held: boolean,
): Promise<boolean> {
  if (boss.findJobs === undefined) return false;
  if ((await boss.findJobs(name, { key, queued: true, limit: 1 })).length > 0) return true;
  if (!held) return false;
  for (let after: string | undefined; ;) {
    const jobs = await boss.findJobs(name, {
      key,
      limit: PAGE,
      ...(after === undefined ? {} : { after }),
    });
    if (jobs.some((job) => UNFINISHED.has(job.state))) return true;
    if (jobs.length < PAGE) return false;
    after = jobs.at(-1)?.id;
  }
}
