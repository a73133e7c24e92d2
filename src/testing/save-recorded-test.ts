import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { ConfigError } from '../errors.js';
import { isRecord } from '../unknown-value.js';
import {
  batonSpecifier,
  moduleSpecifier,
  recordedTestSource,
  type WorkflowExport,
} from './recorded-test.js';

/** What `saveRecordedTest()` needs: a session of a workflow module, and where to write. */
export interface SaveRecordedTestOptions {
  /** The session (`workflow.session(id)` of the module's workflow). */
  readonly session: object;
  readonly sessionId: string;
  /** The workflow module, as the user named it (relative to the working directory). */
  readonly modulePath: string;
  /** True when the workflow came from `createWorkflow({ checkpointStore })`. */
  readonly storeGiven: boolean;
  /** The test file. @default test/recorded/<id>.test.ts */
  readonly out?: string;
}

/** A file name from a session id: letters, digits, `.`, `_` and `-` kept, the rest `_`. */
export function fileSafe(id: string): string {
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

/**
 * Records a session and writes a Vitest test that replays it, with the recording beside it
 * (`baton test record` and the devtools' "Save as test"). Returns the two paths.
 * @throws ConfigError when the workflow has no `session.record()` or does not replay the session.
 */
export async function saveRecordedTest(
  options: SaveRecordedTestOptions,
): Promise<{ test: string; recording: string }> {
  const { session, sessionId, modulePath } = options;
  const record = isRecord(session) ? session.record : undefined;
  if (typeof record !== 'function') {
    throw new ConfigError(
      `The workflow of ${modulePath} has no session.record(): it was built by a Baton older than ` +
        'recorded tests. Update the package the module imports.',
    );
  }
  const recording: unknown = await record.call(session, {});
  const out = options.out ?? join('test', 'recorded', `${fileSafe(sessionId)}.test.ts`);
  const recordingFile = recordingPath(out);
  const source = recordedTestSource({
    sessionId,
    modulePath,
    moduleImport: moduleSpecifier(out, modulePath),
    exported: await exportOf(modulePath, options.storeGiven),
    batonImport: await batonSpecifier(out, modulePath),
    recordingFile: basename(recordingFile),
  });
  await mkdir(dirname(resolve(out)), { recursive: true });
  await writeFile(recordingFile, `${JSON.stringify(recording, null, 2)}\n`);
  await writeFile(out, source);
  return { test: out, recording: recordingFile };
}
