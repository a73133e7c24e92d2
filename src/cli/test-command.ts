import { FileCheckpointStore } from '../checkpoint/file-checkpoint-store.js';
import { saveRecordedTest } from '../testing/save-recorded-test.js';
import { type CommandSpec, subcommandArgs, UsageError } from './cli-args.js';
import { checkStoreDirectory } from './store-directory.js';
import { loadWorkflowModule } from './workflow-module.js';

export const TEST_RECORD_SPEC: CommandSpec = {
  command: 'test record',
  options: [
    { name: 'session', value: 'an id', example: '--session 3f2a' },
    { name: 'store', value: 'a directory', example: '--store .baton' },
    { name: 'out', value: 'a file', example: '--out test/recorded/refund.test.ts' },
  ],
  positionals: [{ name: 'workflow module', example: 'baton test record desk.ts' }],
};

export const TEST_HELP = `Usage: baton test record <module> --session <id> [--store <dir>] [--out <file>]

Turns a session into a regression test: writes a Vitest test (--out, default
test/recorded/<id>.test.ts) and the session's recording beside it (<same name>.recording.json).
The test imports the module by its relative path and replays the recording against its workflow:
every agent's model answers as recorded, tools give their recorded results, and the test fails
with the first divergence (turn, agent, what was recorded and what happened).

  --session <id>    the session to record (required)
  --store <dir>     read the session from a FileCheckpointStore in <dir>; the module must export
                    createWorkflow({ checkpointStore }), as for baton run
  --out <file>      where to write the test (its directory is made if missing)
`;

/** `baton test record <module> --session <id>`: writes a replay test and its recording. */
export async function testCommand(argv: readonly string[]): Promise<number> {
  const args = subcommandArgs('test', 'record', TEST_RECORD_SPEC, TEST_HELP, argv);
  if (typeof args === 'number') return args;
  const path = args.positionals['workflow module'] ?? '';
  const sessionId = args.options.get('session');
  if (sessionId === undefined) {
    throw new UsageError(
      'baton test record: which session? Give --session <id> (baton run and baton dev print ids).',
    );
  }
  const directory = args.options.get('store');
  if (directory !== undefined) await checkStoreDirectory('test record', directory);
  const module = await loadWorkflowModule('test record', path, {
    ...(directory === undefined ? {} : { checkpointStore: new FileCheckpointStore(directory) }),
  });
  const session = module.workflow.session(sessionId);
  const thread = await session.messages();
  if (thread.length === 0) {
    throw new UsageError(
      `baton test record: session "${sessionId}" of ${path} has no messages. ` +
        (directory === undefined
          ? 'Give the store it is kept in with --store <dir>, or the session id baton run printed.'
          : `Is it kept in ${directory}? baton run and baton dev print the ids of their sessions.`),
    );
  }
  const out = args.options.get('out');
  const written = await saveRecordedTest({
    session,
    sessionId,
    modulePath: path,
    storeGiven: module.storeGiven,
    ...(out === undefined ? {} : { out }),
  });
  process.stdout.write(
    `Wrote ${written.test} and ${written.recording}: session "${sessionId}" of ${module.name}.\n` +
      `Run it: npx vitest run ${written.test}\n`,
  );
  return 0;
}
