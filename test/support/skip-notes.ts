// Why a test skips, and how to make it run: the note each `ctx.skip(note)` passes, which the
// skip-summary reporter groups at the end of `npm test`.

const START_POSTGRES = 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start';
const START_REDIS = 'redis-server --daemonize yes --port 6379';

export const SKIP_NOTES = {
  postgres: `no PostgreSQL at 127.0.0.1:5432; start it (${START_POSTGRES}) or run .ci/run`,
  redis: `no Redis at 127.0.0.1:6379; start it (${START_REDIS}) or run .ci/run`,
  chromium: 'no /usr/bin/chromium; install it (apt-get install chromium) or run .ci/run',
} as const;

/** The note for a store or backend named like `PostgresCheckpointStore` or `redis`. */
export function skipNoteFor(name: string): string {
  if (/postgres/i.test(name)) return SKIP_NOTES.postgres;
  if (/redis/i.test(name)) return SKIP_NOTES.redis;
  return `${name} is not reachable`;
}
