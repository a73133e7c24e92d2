import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import { FileCheckpointStore } from '../checkpoint/file-checkpoint-store.js';
import { PostgresCheckpointStore } from '../checkpoint/postgres-checkpoint-store.js';
import { RedisCheckpointStore } from '../checkpoint/redis-checkpoint-store.js';
import { checkStoredSessions } from '../engine/session/check-sessions.js';
import { visibleControls } from '../visible-controls.js';
import { type CommandSpec, parseCommandArgs, UsageError } from './cli-args.js';
import { loadWorkflowModule } from './workflow-module.js';

export const SESSIONS_CHECK_SPEC: CommandSpec = {
  command: 'sessions check',
  options: [
    {
      name: 'store',
      value: 'a directory, postgres:// or redis:// address',
      example: '--store postgres://127.0.0.1/desk',
    },
    { name: 'json', value: '', example: '--json', flag: true },
  ],
  positionals: [
    { name: 'workflow module', example: 'baton sessions check desk.ts --store .baton' },
  ],
};

export const SESSIONS_HELP = `Usage: baton sessions check <module> --store <dir | postgres://… | redis://…> [--json]

Checks every session the store holds against the module's workflow, as a new build would take it
over, and prints one line per session ("ok <id>" or "FAIL <id>: <reason>"), then a summary. Nothing
is written. Exits 1 when any session would fail, 0 when every one is ok.

  --store <where>   a directory (FileCheckpointStore), postgres://… (PostgresCheckpointStore;
                    ?table=<name> for a table other than the default) or redis://…
                    (RedisCheckpointStore; ?keyPrefix=<prefix> for another prefix)
  --json            print [{ sessionId, ok, reason? }] as JSON instead
`;

/** The store a `--store` value names: a directory, or a Postgres or Redis address. */
export function storeOfArgument(command: string, text: string): CheckpointStore {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    const url = new URL(text);
    if (url.protocol === 'postgres:' || url.protocol === 'postgresql:') {
      const table = url.searchParams.get('table');
      url.searchParams.delete('table');
      return new PostgresCheckpointStore({
        connectionString: url.toString(),
        ...(table === null ? {} : { table }),
      });
    }
    if (url.protocol === 'redis:' || url.protocol === 'rediss:') {
      const keyPrefix = url.searchParams.get('keyPrefix');
      url.searchParams.delete('keyPrefix');
      return new RedisCheckpointStore({
        url: url.toString(),
        ...(keyPrefix === null ? {} : { keyPrefix }),
      });
    }
    throw new UsageError(
      `baton ${command}: --store needs a directory, a postgres:// or a redis:// address, got "${url.protocol}//…".`,
    );
  }
  return new FileCheckpointStore(text);
}

/** `baton sessions check <module> --store <where> [--json]`. */
export async function sessionsCommand(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    process.stdout.write(SESSIONS_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'check') {
    throw new UsageError(
      `baton sessions: unknown subcommand "${sub}"; the one there is is "check". Run "baton sessions --help".`,
    );
  }
  const args = parseCommandArgs(SESSIONS_CHECK_SPEC, rest);
  if (args.help) {
    process.stdout.write(SESSIONS_HELP);
    return 0;
  }
  const where = args.options.get('store');
  if (where === undefined) {
    throw new UsageError(
      'baton sessions check: give --store <dir | postgres://… | redis://…>, the store of the sessions to check.',
    );
  }
  const module = await loadWorkflowModule(
    'sessions check',
    args.positionals['workflow module'] ?? '',
  );
  const store = storeOfArgument('sessions check', where);
  try {
    const report = await checkStoredSessions(module.workflow, store);
    const failing = report.filter((s) => !s.ok).length;
    if (args.options.has('json')) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      const lines = report.map((s) =>
        s.ok ? `ok ${s.sessionId}` : `FAIL ${s.sessionId}: ${s.reason ?? ''}`,
      );
      lines.push(
        `${report.length} session${report.length === 1 ? '' : 's'} checked: ` +
          `${report.length - failing} ok, ${failing} would fail.`,
      );
      // Ids and reasons come from the store (any HTTP client chose the ids): controls show.
      process.stdout.write(`${lines.map((l) => visibleControls(l)).join('\n')}\n`);
    }
    return failing > 0 ? 1 : 0;
  } finally {
    await store.close();
    await module.workflow.checkpointStore?.close();
  }
}
