import { randomBytes } from 'node:crypto';

import { FileCheckpointStore } from '../checkpoint/file-checkpoint-store.js';
import { chatPage } from '../serve/chat-page-html.js';
import { listenOnNode } from '../serve/node-listen.js';
import { serve } from '../serve/serve.js';
import { isServedWorkflow } from '../serve/serve-options.js';
import { codeOf } from '../unknown-value.js';
import { type CommandSpec, parseCommandArgs, UsageError } from './cli-args.js';
import { docsUrl } from './links.js';
import { checkStoreDirectory } from './store-directory.js';
import { loadWorkflowModule } from './workflow-module.js';
import { untilSignal } from './until-signal.js';
import { dispatcherOfUrl } from './worker-command.js';

export const SERVE_SPEC: CommandSpec = {
  command: 'serve',
  options: [
    { name: 'port', value: 'a port number', example: '--port 8787' },
    { name: 'host', value: 'an address', example: '--host 127.0.0.1' },
    { name: 'store', value: 'a directory', example: '--store .baton' },
    { name: 'ui', value: 'no value', example: '--ui', flag: true },
    {
      name: 'queue',
      value: 'a postgres:// or redis:// address',
      example: '--queue redis://127.0.0.1:6379',
    },
  ],
  positionals: [{ name: 'workflow module', example: 'baton serve desk.ts' }],
};

export const SERVE_HELP = `Usage: baton serve <module> [--port 8787] [--host 127.0.0.1] [--store <dir>] [--ui] [--queue <url>]

Serves a workflow module's sessions over HTTP and prints one line:
  Baton serve: http://127.0.0.1:8787
Routes: /sessions (JSON and SSE), /chat (the AI SDK's useChat), /ag-ui (AG-UI), /healthz.
Every route but /healthz needs "Authorization: Bearer <token>": the token is BATON_TOKEN, or
one is generated and printed when BATON_TOKEN is not set.

  --port <n>      the port (default 8787; 0 for any free port)
  --host <addr>   the address to listen on (default 127.0.0.1); any other than a loopback
                  address needs BATON_TOKEN, of at least 16 characters
  --store <dir>   keep sessions in a FileCheckpointStore in <dir>; the module must export
                  createWorkflow({ checkpointStore })
  --ui            also serve a customer chat page at / and print its address; the token rides
                  in the address's #fragment, which the browser never sends to the server
  --queue <url>   queue the runs for workers (baton worker <module> --queue <url>, docs/workers.md)
                  instead of running them here: postgres://… for pg-boss, redis://… for BullMQ;
                  the module's store must be one every machine shares (Postgres or Redis)

Ctrl-C stops the server; runs in progress finish first. Routes, protocols and tenants:
  ${docsUrl('serving.md')}
`;

/**
 * The shortest BATON_TOKEN a server reachable from other machines takes: a short token is guessed
 * by trying (the generated one has 32 characters).
 */
const MIN_REACHABLE_TOKEN = 16;

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/i;

function parsePort(text: string | undefined): number {
  if (text === undefined) return 8787;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) {
    throw new UsageError(
      `baton serve: --port needs a port number from 0 to 65535, got "${text}". Run "baton serve --help".`,
    );
  }
  return port;
}

/** `baton serve <module>`: serves the workflow's sessions over HTTP until Ctrl-C. */
export async function serveCommand(argv: readonly string[], env = process.env): Promise<number> {
  const args = parseCommandArgs(SERVE_SPEC, argv);
  if (args.help) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  const port = parsePort(args.options.get('port'));
  const host = args.options.get('host') ?? '127.0.0.1';
  const given =
    env.BATON_TOKEN === undefined || env.BATON_TOKEN === '' ? undefined : env.BATON_TOKEN;
  if (given === undefined && !LOOPBACK.test(host)) {
    throw new UsageError(
      `baton serve: --host ${host} is reachable from other machines; set BATON_TOKEN to the ` +
        'token clients must send (a generated one is only for loopback addresses).',
    );
  }
  if (given !== undefined && given.length < MIN_REACHABLE_TOKEN && !LOOPBACK.test(host)) {
    throw new UsageError(
      `baton serve: BATON_TOKEN is ${given.length} characters long; on --host ${host}, reachable ` +
        `from other machines, it must be at least ${MIN_REACHABLE_TOKEN} characters. Use a long ` +
        'random one, e.g. the output of "openssl rand -base64 24".',
    );
  }
  const token = given ?? randomBytes(24).toString('base64url');
  const path = args.positionals['workflow module'] ?? '';
  const directory = args.options.get('store');
  if (directory !== undefined) await checkStoreDirectory('serve', directory);
  const module = await loadWorkflowModule('serve', path, {
    ...(directory === undefined ? {} : { checkpointStore: new FileCheckpointStore(directory) }),
  });
  if (!isServedWorkflow(module.workflow)) {
    throw new UsageError(`baton serve: "${path}" exports no built workflow or team.`);
  }
  const ui = args.options.has('ui');
  const queue = args.options.get('queue');
  const dispatcher = queue === undefined ? undefined : dispatcherOfUrl(queue, 'serve');
  const handler = serve(module.workflow, {
    token,
    ...(ui ? { page: chatPage(module.name) } : {}),
    ...(dispatcher === undefined ? {} : { dispatcher }),
  });
  let listening: Awaited<ReturnType<typeof listenOnNode>>;
  try {
    listening = await listenOnNode(handler, port, host);
  } catch (error) {
    await dispatcher?.close();
    if (codeOf(error) === 'EADDRINUSE') {
      throw new UsageError(
        `baton serve: port ${port} is in use. Pick another with --port (0 for any free port).`,
      );
    }
    throw error;
  }
  process.stdout.write(
    `Baton serve: ${listening.url}${dispatcher === undefined ? '' : ` (runs queued on ${dispatcher.engine})`}\n`,
  );
  process.stdout.write(
    given === undefined
      ? `Token (send as Authorization: Bearer <token>): ${token}\n`
      : 'Token: the value of BATON_TOKEN\n',
  );
  if (ui) {
    // The page reads the token from the fragment and keeps it in the tab's sessionStorage.
    process.stdout.write(
      given === undefined
        ? `Chat page: ${listening.url}/#token=${token}\n`
        : `Chat page: ${listening.url}/#token=<the value of BATON_TOKEN>\n`,
    );
  }
  const code = await untilSignal();
  await listening.close();
  await handler.close();
  await dispatcher?.close();
  await module.workflow.checkpointStore?.close();
  return code;
}
