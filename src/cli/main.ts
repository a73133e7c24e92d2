#!/usr/bin/env node
// Each command loads its own modules when it runs (a dynamic import), so `baton --help` and
// `baton graph` never load the OpenAI client, the devtools server or the demo: the first call in a
// clone, where tsx compiles every module it loads, stays short.
import { visibleControls } from '../visible-controls.js';
import { REPOSITORY, SAMPLES_URL } from './links.js';
import { closest, type CommandSpec, parseCommandArgs, UsageError } from './cli-args.js';

const HELP = `baton — multi-agent workflows where control passes like a baton

Usage:
  baton init [--dir <dir>]      write a desk that runs as it is: desk.ts, tsconfig.json and the
                                package.json scripts (start, dev, serve, typecheck)
  baton run <module> [--session <id>] [--store <dir>]
                                run a workflow module in this terminal (prompt at each pause,
                                Ctrl-C stops; piped input is one reply per line)
  baton graph <module>          print the workflow's routing graph as Mermaid text
  baton dev <module> [--port <n>] [--store <dir>]
                                serve the devtools page: live graph, transcript, reply box, Stop
  baton serve <module> [--port 8787] [--host 127.0.0.1] [--store <dir>] [--ui]
                                serve the workflow's sessions over HTTP: JSON/SSE routes, the AI
                                SDK's useChat (/chat) and AG-UI (/ag-ui); token from BATON_TOKEN;
                                --ui adds a customer chat page at /
  baton worker <module> --queue <postgres://… | redis://…> [--concurrency 10]
                                make the runs servers queue (pg-boss or BullMQ); SIGTERM lets
                                running turns finish
  baton sessions check <module> --store <dir | postgres://… | redis://…> [--json]
                                check every stored session against the module's workflow before
                                it ships: ok, or why this build cannot take it over (exit 1)
  baton demo [--session <id>]   run the support-desk demo (offline model unless the environment
                                names one, below); sessions are kept in .baton/ in the current
                                directory, and --session resumes one
  baton test record <module> --session <id> [--store <dir>] [--out <file>]
                                turn a session into a Vitest test that replays it (recorded model
                                answers and tool results) and fails at the first divergence
  baton eval routing <module> <cases.jsonl> [--min-accuracy <0..1>] [--concurrency <n>] [--json]
                                measure where the workflow routes each case: accuracy, confusion
                                matrix, model calls and tokens per case
  baton <command> --help        describe one command
  baton --help                  show this help

A workflow module is a .ts or .js file whose export "workflow" (or default export) is a built
HandoffWorkflow or team, such as the README's tour saved as desk.ts with \`export const workflow =
desk\`; a .ts module loads through tsx (npm install --save-dev tsx) without a build step.

Samples, each a complete program to run in a clone of the repository:
  ${SAMPLES_URL}
Documentation (also in the package's docs/ folder):
  ${REPOSITORY}#readme

Environment (the demo's model; modelFromEnvironment() gives it to workflow modules):
  OPENAI_API_KEY, OPENAI_BASE_URL   a real OpenAI-compatible model, when openai is installed
  ANTHROPIC_API_KEY                 Claude through @ai-sdk/anthropic, when that is installed
  BATON_MODEL                       the model name (default gpt-4.1-mini, claude-haiku-4-5)
  BATON_TOKEN                       the token baton serve requires (generated when unset)
`;

const DEMO_HELP = `Usage: baton demo [--session <id>]

Runs the support-desk demo in this terminal; piped input is one reply per line.
Sessions are kept in .baton/ in the current directory (made if missing; the demo prints its full
path); --session <id> resumes one (or starts a new one under that id).
`;

const DEMO_SPEC: CommandSpec = {
  command: 'demo',
  options: [{ name: 'session', value: 'an id', example: '--session 3f2a' }],
  positionals: [],
};

async function demoCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommandArgs(DEMO_SPEC, argv);
  if (args.help) {
    process.stdout.write(DEMO_HELP);
    return 0;
  }
  const sessionId = args.options.get('session');
  const [{ runDemo }, { processTerminal }] = await Promise.all([
    import('./demo.js'),
    import('./process-terminal.js'),
  ]);
  const terminal = processTerminal();
  try {
    return await runDemo(terminal, {
      env: process.env,
      thinkMs: process.stdout.isTTY ? 250 : 0,
      ...(sessionId === undefined ? {} : { sessionId }),
    });
  } finally {
    // Also when the demo fails before the conversation starts: an open TTY would hang.
    terminal.close?.();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    return command === undefined ? 2 : 0;
  }
  switch (command) {
    case 'demo':
      return demoCommand(rest);
    case 'init':
      return (await import('./init-command.js')).initCommand(rest);
    case 'run': {
      const [{ runCommand }, { processTerminal }] = await Promise.all([
        import('./run-command.js'),
        import('./process-terminal.js'),
      ]);
      const code = await runCommand(rest, processTerminal);
      process.stdin.pause();
      return code;
    }
    case 'graph':
      return (await import('./graph-command.js')).graphCommand(rest);
    case 'dev':
      return (await import('./dev-command.js')).devCommand(rest);
    case 'serve':
      return (await import('./serve-command.js')).serveCommand(rest);
    case 'worker':
      return (await import('./worker-command.js')).workerCommand(rest);
    case 'sessions':
      return (await import('./sessions-command.js')).sessionsCommand(rest);
    case 'test':
      return (await import('./test-command.js')).testCommand(rest);
    case 'eval':
      return (await import('./eval-command.js')).evalCommand(rest);
    default: {
      const meant = closest(command, [
        'init',
        'run',
        'graph',
        'dev',
        'serve',
        'worker',
        'sessions',
        'demo',
        'test',
        'eval',
        'help',
      ]);
      throw new UsageError(
        `baton: unknown command "${command}"${meant === undefined ? '.' : `: did you mean "${meant}"?`} ` +
          'Run "baton --help".',
      );
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Messages quote what the user typed and what a model or a module said: controls show.
    if (error instanceof UsageError) {
      process.stderr.write(`${visibleControls(error.message)}\n`);
      process.exitCode = 2;
      return;
    }
    const text = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    process.stderr.write(`baton: ${visibleControls(text ?? '')}\n`);
    process.exitCode = 1;
  },
);
