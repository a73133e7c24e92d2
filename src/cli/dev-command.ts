import { FileCheckpointStore } from '../checkpoint/file-checkpoint-store.js';
import { startDevtoolsServer } from '../devtools/devtools-server.js';
import { type CommandSpec, parseCommandArgs, UsageError } from './cli-args.js';
import { checkStoreDirectory } from './store-directory.js';
import { loadWorkflowModule } from './workflow-module.js';
import { codeOf } from '../unknown-value.js';
import { untilSignal } from './until-signal.js';

export const DEV_SPEC: CommandSpec = {
  command: 'dev',
  options: [
    { name: 'port', value: 'a port number', example: '--port 4800' },
    { name: 'store', value: 'a directory', example: '--store .baton' },
    { name: 'tests', value: 'a directory', example: '--tests test/recorded' },
  ],
  positionals: [{ name: 'workflow module', example: 'baton dev desk.ts' }],
};

export const DEV_HELP = `Usage: baton dev <module> [--port <n>] [--store <dir>] [--tests <dir>]

Starts the devtools page for a workflow module on 127.0.0.1 and prints one line:
  Baton devtools: http://127.0.0.1:<port>/?token=<token>
Open it to watch the workflow graph light up as a session runs, follow the live transcript (tool
calls, handoffs, token usage, how close the termination condition is to firing), reply when the
session asks, stop a run, start new sessions, and browse or fork stored sessions step by step.

  --port <n>      the port (default: any free port)
  --store <dir>   keep sessions in a FileCheckpointStore in <dir> and list all of them; the module
                  must export createWorkflow({ checkpointStore })
  --tests <dir>   where "Save as test" writes a session's test and recording
                  (default test/recorded)

Without --store, a workflow built with its own checkpoint store keeps its step logs and forks
there (the page lists the sessions opened in this process; open others by id); a workflow
without one keeps sessions in this process only. Export the workflow's termination condition as
"terminationCondition" to see its progress. The token changes at every start; every request
needs it, and requests from other origins are refused. Ctrl-C stops the server.
`;

function parsePort(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) {
    throw new UsageError(
      `baton dev: --port needs a port number from 0 to 65535, got "${text}". Run "baton dev --help".`,
    );
  }
  return port;
}

/** `baton dev <module>`: serves the devtools page until Ctrl-C. */
export async function devCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommandArgs(DEV_SPEC, argv);
  if (args.help) {
    process.stdout.write(DEV_HELP);
    return 0;
  }
  const port = parsePort(args.options.get('port'));
  const path = args.positionals['workflow module'] ?? '';
  const directory = args.options.get('store');
  if (directory !== undefined) await checkStoreDirectory('dev', directory);
  const module = await loadWorkflowModule('dev', path, {
    ...(directory === undefined ? {} : { checkpointStore: new FileCheckpointStore(directory) }),
  });
  const tests = args.options.get('tests');
  let server: Awaited<ReturnType<typeof startDevtoolsServer>>;
  try {
    server = await startDevtoolsServer({
      workflow: module.workflow,
      name: module.name,
      module: path,
      ...(module.terminationCondition === undefined
        ? {}
        : { condition: module.terminationCondition }),
      ...(directory === undefined ? {} : { storeDirectory: directory }),
      ...(tests === undefined ? {} : { testDirectory: tests }),
      port,
    });
  } catch (error) {
    if (codeOf(error) === 'EADDRINUSE') {
      throw new UsageError(
        `baton dev: port ${port} is in use. Pick another with --port, or leave it out for any free port.`,
      );
    }
    throw error;
  }
  process.stdout.write(`Baton devtools: ${server.url}\n`);
  const code = await untilSignal();
  await server.close();
  return code;
}
