import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { sessionIdOfStem } from '../checkpoint/file-names.js';

/** What holds a session's records: its `.steps` folder, or the one-file log written before. */
const LOG = /^(.+)\.(steps|log)$/;

/**
 * The ids of the sessions a `FileCheckpointStore` keeps in `directory`, most recently written
 * first. The store names each session's records after a stem that encodes its id
 * (`file-names.ts`); ids too long for a file name are stored under a hash and cannot be listed,
 * only opened by id. A missing directory has no sessions.
 */
export async function storedSessionIds(directory: string, limit = 200): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return [];
  }
  const written = new Map<string, number>();
  await Promise.all(
    names.map(async (name) => {
      const stem = LOG.exec(name)?.[1];
      const id = stem === undefined ? undefined : sessionIdOfStem(stem);
      if (id === undefined) return;
      const at = await stat(join(directory, name)).then(
        (info) => info.mtimeMs,
        () => 0,
      );
      written.set(id, Math.max(written.get(id) ?? 0, at));
    }),
  );
  return [...written]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([id]) => id);
}
