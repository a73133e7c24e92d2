import { FileCheckpointStore } from '../checkpoint/file-checkpoint-store.js';
import { graphStates, handoffToUserFrom, userTask } from '../devtools/session-activity.js';
import type { DevSession } from '../devtools/hub-types.js';
import { workflowGraph } from '../devtools/workflow-graph.js';
import { type CommandSpec, parseCommandArgs } from './cli-args.js';
import { checkStoreDirectory } from './store-directory.js';
import { type TerminalIO, talk } from './terminal-session.js';
import { loadWorkflowModule } from './workflow-module.js';

export const RUN_SPEC: CommandSpec = {
  command: 'run',
  options: [
    { name: 'session', value: 'an id', example: '--session 3f2a' },
    { name: 'store', value: 'a directory', example: '--store .baton' },
  ],
  positionals: [{ name: 'workflow module', example: 'baton run desk.ts' }],
};

export const RUN_HELP = `Usage: baton run <module> [--session <id>] [--store <dir>]

Runs a workflow module in this terminal, like the demo: a prompt at each pause, a spinner, the
coloured transcript, Ctrl-C stops the run cleanly; piped input is one reply per line.

  <module>          a .ts or .js file whose export "workflow" (or default export) is a built
                    HandoffWorkflow or team; a .ts module loads through tsx (npm install
                    --save-dev tsx) without a build step
  --session <id>    use (or resume) the session with this id instead of a new one
  --store <dir>     keep sessions in a FileCheckpointStore in <dir>; the module must export
                    createWorkflow({ checkpointStore }) so the CLI can build the workflow on it

Resuming: a session can be resumed only from a checkpoint store. With --store the CLI gives the
workflow one; a workflow built with its own withCheckpointing() store resumes with --session
alone; a workflow without a store keeps its sessions in this process only, so --session then
starts a new in-memory session under that id (the CLI says so).
`;

/** Whether a session keeps a step log (its workflow has a checkpoint store). */
async function isStored(session: DevSession): Promise<boolean> {
  if (typeof session.checkpoints !== 'function') return false;
  try {
    await session.checkpoints();
    return true;
  } catch (error) {
    if (error instanceof Error && error.name === 'ConfigError') return false;
    throw error;
  }
}

/** `baton run <module>`: one interactive session of any workflow module. */
export async function runCommand(argv: readonly string[], terminal: () => TerminalIO) {
  const args = parseCommandArgs(RUN_SPEC, argv);
  if (args.help) {
    process.stdout.write(RUN_HELP);
    return 0;
  }
  const path = args.positionals['workflow module'] ?? '';
  const directory = args.options.get('store');
  if (directory !== undefined) await checkStoreDirectory('run', directory);
  const module = await loadWorkflowModule('run', path, {
    ...(directory === undefined ? {} : { checkpointStore: new FileCheckpointStore(directory) }),
  });
  const sessionId = args.options.get('session');
  const session = module.workflow.session(sessionId);
  const states = graphStates(
    module.workflow.machine === undefined ? undefined : workflowGraph(module.workflow.machine),
  );
  const resume =
    directory !== undefined
      ? `Session ${session.id} is saved in ${directory}/; resume it with: baton run ${path} --store ${directory} --session ${session.id}`
      : (await isStored(session))
        ? `Session ${session.id} is saved in the workflow's checkpoint store; resume it with: baton run ${path} --session ${session.id}`
        : `Session ${session.id} lives in this process only: the workflow has no checkpoint store, so it cannot be resumed later ` +
          '(build it with withCheckpointing(), or export createWorkflow({ checkpointStore }) and pass --store <dir>).';
  // Says which model the environment names, which modules get from modelFromEnvironment().
  const { modelFromEnvironment } = await import('../models/model-from-environment.js');
  const chosen = await modelFromEnvironment(process.env);
  const model =
    chosen.client !== undefined
      ? [`Model from the environment: ${chosen.description}`]
      : chosen.missing !== undefined
        ? [`No model from the environment: ${chosen.missing}.`]
        : [];
  return talk(terminal(), session, {
    intro: [
      `Baton: ${module.name} from ${path}`,
      ...model,
      'Type your message and press Enter; Ctrl-C stops at any time.',
      resume,
      '',
    ],
    // A team that handed off to the user (a Swarm) takes the answer as a handoff back.
    taskFor: async (line) => userTask(line, await session.messages(), states),
    goesOn: (result) =>
      result.status === 'awaiting_input' ||
      (result.status === 'terminated' && handoffToUserFrom(result.messages, states) !== undefined),
  });
}
