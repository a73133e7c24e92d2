import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

import { UsageError } from './cli-args.js';

/**
 * Checks, before anything runs, that `directory` can hold a `FileCheckpointStore`: it is a
 * directory, or it is missing and the nearest part of its path that exists is a writable
 * directory (the store makes the rest). Otherwise the first save would fail after the session
 * started. Throws a one-line `UsageError` naming the part of the path at fault; `what` names the
 * directory for the user (`--store "x"`).
 */
export async function checkStoreDirectory(
  command: string,
  directory: string,
  what = `--store "${directory}"`,
): Promise<void> {
  const fail = (text: string): never => {
    throw new UsageError(`baton ${command}: ${what} ${text}`);
  };
  let path = directory;
  for (;;) {
    const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      // ENOTDIR: a part of the path is a file; the loop finds which.
      if (error.code === 'ENOTDIR') return undefined;
      return fail(`cannot be read: ${error.message}.`);
    });
    if (info !== undefined) {
      if (!info.isDirectory()) {
        fail(
          path === directory
            ? 'is a file, not a directory. Give a directory (it is made if missing).'
            : `cannot be made: "${path}" is a file. Give a directory (it is made if missing).`,
        );
      }
      await access(path, constants.W_OK).catch(() =>
        fail(`cannot be written: "${path}" is not writable. Give a directory you can write to.`),
      );
      return;
    }
    const parent = dirname(path);
    if (parent === path) return;
    path = parent;
  }
}
