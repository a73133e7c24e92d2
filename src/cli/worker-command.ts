import { isServedWorkflow } from '../serve/serve-options.js';
import { BullMQDispatcher } from '../workers/bullmq-dispatcher.js';
import type { Dispatcher } from '../workers/dispatcher.js';
import { PgBossDispatcher } from '../workers/pg-boss-dispatcher.js';
import { startWorker } from '../workers/start-worker.js';
import { type CommandSpec, parseCommandArgs, UsageError } from './cli-args.js';
import { docsUrl } from './links.js';
import { untilSignal } from './until-signal.js';
import { loadWorkflowModule } from './workflow-module.js';

export const WORKER_SPEC: CommandSpec = {
  command: 'worker',
  options: [
    {
      name: 'queue',
      value: 'a postgres:// or redis:// address',
      example: '--queue redis://127.0.0.1:6379',
    },
    { name: 'concurrency', value: 'a number', example: '--concurrency 10' },
  ],
  positionals: [{ name: 'workflow module', example: 'baton worker desk.ts --queue postgres://…' }],
};

export const WORKER_HELP = `Usage: baton worker <module> --queue <postgres://… | redis://…> [--concurrency 10]

Makes the runs that servers (serve(workflow, { dispatcher })) queue for the module's workflow,
and prints one line when it takes jobs:
  Baton worker: <queue> (pg-boss), concurrency 10
The workflow must keep its sessions in a store every machine shares (PostgresCheckpointStore or
RedisCheckpointStore). The queue is "baton.<workflow name>".

  --queue <url>        postgres://… for pg-boss, redis://… for BullMQ
  --concurrency <n>    how many runs it makes at once (default 10)

SIGTERM or Ctrl-C: takes no new jobs, lets running turns finish (up to 30 s), then exits.
Queues, stores and failures: ${docsUrl('workers.md')}
`;

/** The dispatcher a `--queue` address names (for `baton <command>`). */
export function dispatcherOfUrl(text: string, command = 'worker'): Dispatcher {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `baton ${command}: --queue needs a postgres:// or redis:// address, got "${text}".`,
    );
  }
  if (url.protocol === 'postgres:' || url.protocol === 'postgresql:') {
    return new PgBossDispatcher({ connectionString: text });
  }
  if (url.protocol === 'redis:' || url.protocol === 'rediss:') {
    const db = url.pathname.replace(/^\//, '');
    return new BullMQDispatcher({
      connection: {
        host: url.hostname,
        port: url.port === '' ? 6379 : Number(url.port),
        ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
        ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
        ...(/^\d+$/.test(db) ? { db: Number(db) } : {}),
        ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
      },
    });
  }
  throw new UsageError(
    `baton ${command}: --queue needs a postgres:// or redis:// address, got "${url.protocol}//…".`,
  );
}

/** `baton worker <module> --queue <url>`: makes queued runs until SIGTERM or Ctrl-C. */
export async function workerCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommandArgs(WORKER_SPEC, argv);
  if (args.help) {
    process.stdout.write(WORKER_HELP);
    return 0;
  }
  const queue = args.options.get('queue');
  if (queue === undefined) {
    throw new UsageError(
      'baton worker: give --queue <postgres://… | redis://…>. Run "baton worker --help".',
    );
  }
  const text = args.options.get('concurrency') ?? '10';
  const concurrency = Number(text);
  if (!/^\d+$/.test(text) || concurrency < 1 || concurrency > 10_000) {
    throw new UsageError(
      `baton worker: --concurrency needs a number from 1 to 10000, got "${text}".`,
    );
  }
  const path = args.positionals['workflow module'] ?? '';
  const module = await loadWorkflowModule('worker', path, {});
  if (!isServedWorkflow(module.workflow)) {
    throw new UsageError(`baton worker: "${path}" exports no built workflow or team.`);
  }
  const dispatcher = dispatcherOfUrl(queue);
  try {
    const worker = await startWorker(module.workflow, { dispatcher, concurrency });
    process.stdout.write(`Baton worker: ${dispatcher.engine}, concurrency ${concurrency}\n`);
    const code = await untilSignal();
    await worker.close();
    return code;
  } finally {
    await dispatcher.close();
    await module.workflow.checkpointStore?.close();
  }
}
