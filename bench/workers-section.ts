// The "Issue 30" section of `npm run bench`: what a queue adds to a turn (pg-boss and BullMQ beside
// in-process serve()), turns per second with 1–3 worker processes, and the recovery time after a
// SIGKILL with default settings (bench/workers.ts). Needs PostgreSQL and Redis on 127.0.0.1.
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';

import { fmt, time } from './format.js';
import { type Figures, measure } from './measure.js';

const num = (f: Figures, key: string) => (typeof f[key] === 'number' ? f[key] : undefined);

export function workersSection(): string[] {
  const load = loadavg()[0] ?? 0;
  const overhead = measure('workers.ts', ['overhead']);
  const through = (engine: string, n: number) =>
    measure('workers.ts', ['throughput', engine, String(n)]);
  const rows = [1, 2, 3].map((n) => [n, through('pg', n), through('redis', n)] as const);
  const recovery = {
    pg: measure('workers.ts', ['recovery', 'pg']),
    redis: measure('workers.ts', ['recovery', 'redis']),
  };
  const added = (kind: string, p: string) => {
    const a = num(overhead, `${kind}${p}Us`);
    const b = num(overhead, `inProcess${p}Us`);
    return a === undefined || b === undefined ? undefined : a - b;
  };
  return [
    '## Issue 30: workers',
    '',
    'A one-agent desk (test/support/queue-desk.ts, instant scripted model; one step for the input and',
    'one for the answer a turn) over `handler.fetch` on the PostgresCheckpointStore: turn by turn on one',
    'session per mode, the modes alternating, 80 timed turns each after 10 warm-up turns. "Queued" runs',
    'go through the queue to a worker in the same process, so the difference is the queue alone.',
    `Load average when the run began: ${load.toFixed(1)} (${cpus().length} cores, shared with other helpers).`,
    '',
    '| per turn | p50 | p99 | added p50 | added p99 |',
    '|---|---|---|---|---|',
    `| in-process serve() | ${time(num(overhead, 'inProcessP50Us'))} | ${time(num(overhead, 'inProcessP99Us'))} | | |`,
    `| pg-boss | ${time(num(overhead, 'pgBossP50Us'))} | ${time(num(overhead, 'pgBossP99Us'))} | **${time(added('pgBoss', 'P50'))}** | ${time(added('pgBoss', 'P99'))} |`,
    `| BullMQ | ${time(num(overhead, 'bullmqP50Us'))} | ${time(num(overhead, 'bullmqP99Us'))} | **${time(added('bullmq', 'P50'))}** | ${time(added('bullmq', 'P99'))} |`,
    '',
    'Goal: at most 20 ms added per turn (p50).',
    '',
    'Turns per second: 60 sessions × 3 turns at once through serve() (in the bench process) to worker',
    'processes (concurrency 10 each); pg-boss with the Postgres store, BullMQ with the Redis store.',
    '',
    '| workers | pg-boss + Postgres | BullMQ + Redis |',
    '|---|---|---|',
    ...rows.map(
      ([n, pg, redis]) =>
        `| ${n} | ${fmt(num(pg, 'turnsPerSecond'))} | ${fmt(num(redis, 'turnsPerSecond'))} |`,
    ),
    '',
    'Recovery after a SIGKILL, default settings: two worker processes; the one running a turn (in a',
    '1.5 s tool call) is killed; the time until the other starts the turn again.',
    '',
    '| queue | trials | p50 | p95 | max | the setting that trades it |',
    '|---|---|---|---|---|---|',
    `| pg-boss | ${fmt(num(recovery.pg, 'trials'))} | ${time(num(recovery.pg, 'recoveryP50Us'))} | ${time(num(recovery.pg, 'recoveryP95Us'))} | ${time(num(recovery.pg, 'recoveryMaxUs'))} | \`handOverSeconds\` (default 4; pg-boss's own \`heartbeatSeconds\`, default and minimum 10, when no live worker looks) |`,
    `| BullMQ | ${fmt(num(recovery.redis, 'trials'))} | ${time(num(recovery.redis, 'recoveryP50Us'))} | ${time(num(recovery.redis, 'recoveryP95Us'))} | ${time(num(recovery.redis, 'recoveryMaxUs'))} | \`lockDurationMs\` (default 5 000) |`,
    '',
    'Goal: p95 under 10 s with the default settings.',
    '',
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(workersSection().join('\n'));
}
