import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The ids of the sessions a `FileCheckpointStore` keeps in `directory`, most recently written
 * first. The store names each log `s-<base64url of the id>.log` (see `stem()` in
 * `file-checkpoint-store.ts`); ids too long for a file name are stored under a hash and cannot be
 * listed, only opened by id. A missing directory has no sessions.
 */
export async function storedSessionIds(directory: string, limit = 200): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return [];
  }
  const logs = await Promise.all(
    names
      .filter((name) => name.startsWith('s-') && name.endsWith('.log'))
      .map(async (name) => {
        const written = await stat(join(directory, name)).then(
          (info) => info.mtimeMs,
          () => 0,
        );
        return { id: Buffer.from(name.slice(2, -4), 'base64url').toString('utf8'), written };
      }),
  );
  return logs
    .sort((a, b) => b.written - a.written)
    .slice(0, limit)
    .map((log) => log.id);
}
