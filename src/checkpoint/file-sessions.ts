import { randomUUID } from 'node:crypto';
import { readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { TEMPORARY_PREFIX } from './exclusive-file.js';
import { parseLog } from './file-log-lines.js';
import { sessionIdOfStem } from './file-names.js';
import type { ListEntry } from './session-list.js';
import { codeOf, isRecord } from '../unknown-value.js';

// The sessions of a FileCheckpointStore directory as a whole: what `list()` and the deletes see.
// A session's `updatedAt` is the modification time of its newest record file (the store sets it
// from its clock when it writes the record); its id and owner are in the `.steps` folder's
// `session.json`, written with the folder's first record.

/** The file in a `.steps` folder naming its session and owner (not a step: readers skip it). */
export const SESSION_FILE = 'session.json';
const STEP_NAME = /^(0|[1-9][0-9]{0,15})$/;
const KINDS = /\.(steps|log)$/;

/** A session found in the directory; `id` is undefined for a hashed stem with no `session.json`. */
export interface FileSession extends Omit<ListEntry, 'id'> {
  readonly stem: string;
  readonly id: string | undefined;
}

/** The content of `session.json` for a session opened now. */
export function sessionFile(sessionId: string, owner: string | undefined): string {
  return JSON.stringify(owner === undefined ? { id: sessionId } : { id: sessionId, owner });
}

/** Every session with a log in `directory` (none when it does not exist). */
export async function fileSessions(directory: string): Promise<FileSession[]> {
  const stems = new Set(
    (await namesIn(directory))
      .filter((name) => KINDS.test(name) && !name.startsWith(TEMPORARY_PREFIX))
      .map((name) => name.replace(KINDS, '')),
  );
  const sessions = await Promise.all([...stems].map((stem) => describe(directory, stem)));
  return sessions.filter((s) => s !== undefined);
}

/**
 * Deletes everything of the session `stem` names: its records, its old log, its lease, and what a
 * crash left of them. The records go first, by renaming their folder out of the way (one atomic
 * step, so a reader sees the whole log or none). `true` when there were records.
 */
export async function deleteStem(directory: string, stem: string): Promise<boolean> {
  const steps = join(directory, `${stem}.steps`);
  const doomed = join(directory, `${TEMPORARY_PREFIX}${stem}.deleted-${randomUUID()}`);
  const hadSteps = await rename(steps, doomed).then(
    () => true,
    (error: unknown) => absent(error, false),
  );
  const hadLog = await rm(join(directory, `${stem}.log`)).then(
    () => true,
    (error: unknown) => absent(error, false),
  );
  const leftovers = (await namesIn(directory)).filter((name) =>
    name.startsWith(`${TEMPORARY_PREFIX}${stem}.`),
  );
  await Promise.all(
    [`${stem}.leases`, ...leftovers].map((name) =>
      rm(join(directory, name), { recursive: true, force: true, maxRetries: 3 }),
    ),
  );
  return hadSteps || hadLog;
}

/** The session of `stem`, or undefined when it vanished while being read. */
async function describe(directory: string, stem: string): Promise<FileSession | undefined> {
  const folder = join(directory, `${stem}.steps`);
  const names = await namesIn(folder);
  const last = Math.max(-1, ...names.filter((n) => STEP_NAME.test(n)).map(Number));
  const meta = names.includes(SESSION_FILE)
    ? await readJson(join(folder, SESSION_FILE))
    : undefined;
  const id = typeof meta?.id === 'string' ? meta.id : sessionIdOfStem(stem);
  const owner = typeof meta?.owner === 'string' ? meta.owner : undefined;
  const newest = last >= 0 ? join(folder, String(last)) : join(directory, `${stem}.log`);
  try {
    const at = Math.round((await stat(newest)).mtimeMs);
    const step = last >= 0 ? last : await lastLoggedStep(id ?? stem, newest);
    return { stem, id, owner, step, at };
  } catch (error) {
    return absent(error, undefined);
  }
}

async function lastLoggedStep(sessionId: string, path: string): Promise<number> {
  return parseLog(sessionId, path, await readFile(path, 'utf8')).at(-1)?.step ?? 0;
}

async function readJson(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(path, 'utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

async function namesIn(folder: string): Promise<string[]> {
  return readdir(folder).catch((error: unknown) => absent(error, []));
}

/** `fallback` for a file that does not exist; any other error is thrown again. */
function absent<T>(error: unknown, fallback: T): T {
  if (codeOf(error) === 'ENOENT') return fallback;
  throw error;
}
