import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { FileCheckpointStore } from '../checkpoint/file-checkpoint-store.js';
import { isRecord } from '../unknown-value.js';
import { type CommandSpec, parseCommandArgs, UsageError } from './cli-args.js';
import {
  batonSpecifier,
  moduleSpecifier,
  recordedTestSource,
  type WorkflowExport,
} from './recorded-test.js';
import { checkStoreDirectory } from './store-directory.js';
import { loadWorkflowModule } from './workflow-module.js';

export const TEST_RECORD_SPEC: CommandSpec = {
  command: 'test record',
  options: [
    { name: 'session', value: 'an id', example: '--session 3f2a' },
    { name: 'store', value: 'a directory', example: '--store .baton' },
    { name: 'out', value: 'a file', example: '--out test/recorded/refund.test.ts' },
  ],
  positionals: [{ name: 'workflow module', example: 'baton test record samples/support-desk.ts' }],
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

/** A file name from a session id: letters, digits, `.`, `_` and `-` kept, the rest `_`. */
function fileSafe(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** `x.recording.json` for `x.test.ts` (or `x.ts`). */
export function recordingPath(testFile: string): string {
  const name = basename(testFile).replace(/(\.test)?\.[cm]?[jt]sx?$/, '');
  return join(dirname(testFile), `${name}.recording.json`);
}

/** Which export of the module the generated test uses. */
async function exportOf(path: string, storeGiven: boolean): Promise<WorkflowExport> {
  const namespace: unknown = await import(pathToFileURL(resolve(path)).href);
  const has = (name: string) => isRecord(namespace) && namespace[name] !== undefined;
  if (!storeGiven && has('workflow')) return 'workflow';
  if (!storeGiven && has('default')) return 'default';
  return has('createWorkflow') ? 'createWorkflow' : has('workflow') ? 'workflow' : 'default';
}

/** `baton test record <module> --session <id>`: writes a replay test and its recording. */
export async function testCommand(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    process.stdout.write(TEST_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'record') {
    throw new UsageError(
      `baton test: unknown subcommand "${sub}"; the one there is: record. Run "baton test --help".`,
    );
  }
  const args = parseCommandArgs(TEST_RECORD_SPEC, rest);
  if (args.help) {
    process.stdout.write(TEST_HELP);
    return 0;
  }
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
  const record = isRecord(session) ? session.record : undefined;
  if (typeof record !== 'function') {
    throw new UsageError(
      `baton test record: the workflow of ${path} has no session.record(): it was built by a Baton ` +
        'older than recorded tests. Update the package the module imports.',
    );
  }
  const thread = await session.messages();
  if (thread.length === 0) {
    throw new UsageError(
      `baton test record: session "${sessionId}" of ${path} has no messages. ` +
        (directory === undefined
          ? 'Give the store it is kept in with --store <dir>, or the session id baton run printed.'
          : `Is it kept in ${directory}? baton run and baton dev print the ids of their sessions.`),
    );
  }
  const recording: unknown = await record.call(session, {});
  const out = args.options.get('out') ?? join('test', 'recorded', `${fileSafe(sessionId)}.test.ts`);
  const recordingFile = recordingPath(out);
  const source = recordedTestSource({
    sessionId,
    modulePath: path,
    moduleImport: moduleSpecifier(out, path),
    exported: await exportOf(path, module.storeGiven),
    batonImport: await batonSpecifier(out, path),
    recordingFile: basename(recordingFile),
  });
  await mkdir(dirname(resolve(out)), { recursive: true });
  await writeFile(recordingFile, `${JSON.stringify(recording, null, 2)}\n`);
  await writeFile(out, source);
  process.stdout.write(
    `Wrote ${out} and ${recordingFile}: session "${sessionId}" of ${module.name}.\n` +
      `Run it: npx vitest run ${out}\n`,
  );
  return 0;
}
