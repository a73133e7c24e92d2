import { randomUUID } from 'node:crypto';
import { link, mkdir, open, rename, rm, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

import { codeOf } from '../unknown-value.js';

// Files that appear whole and at most once: the one compare-and-set a file system offers that
// trusts neither clocks nor process ids. The content is written to a temporary file and synced
// first, so a writer killed half-way leaves only a temporary file, never a short record; then a
// hard link (or, for a new folder, a rename) publishes it, and that fails if the name is taken,
// however late the writer comes (stopped with SIGSTOP, stalled on a slow disk, on another host).

/** Temporary files and folders start with this; readers skip them. */
export const TEMPORARY_PREFIX = '.tmp-';

/**
 * Creates `folder/name` holding `content` if no file of that name exists: `true` when this call
 * created it, `false` when one already existed (then nothing is written). `durable: false` skips
 * the syncs, for what need not outlive a power cut (a lease has expired by then anyway).
 */
export async function createOnce(
  folder: string,
  name: string,
  content: string,
  options: { durable?: boolean } = {},
): Promise<boolean> {
  const durable = options.durable ?? true;
  const temporary = join(folder, `${TEMPORARY_PREFIX}${randomUUID()}`);
  await writeWhole(temporary, content, durable);
  try {
    await link(temporary, join(folder, name));
  } catch (error) {
    if (codeOf(error) === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
  if (durable) await syncFolder(folder);
  return true;
}

/**
 * Creates the folder `path` holding `files` (name to content) if no folder `path` exists (a
 * folder is renamed into place whole, and a rename onto a folder that is not empty fails): `true`
 * when this call created it, `false` when it existed. The temporary folder is named after `path`
 * (`.tmp-<name>-<uuid>`), so whoever deletes `path` can find what a crash left of it.
 */
export async function createFolderOnce(
  path: string,
  files: Readonly<Record<string, string>>,
): Promise<boolean> {
  const temporary = join(dirname(path), `${TEMPORARY_PREFIX}${basename(path)}-${randomUUID()}`);
  await mkdir(temporary, { mode: 0o700 });
  try {
    for (const [name, content] of Object.entries(files)) {
      await writeWhole(join(temporary, name), content, true);
    }
    await syncFolder(temporary);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { recursive: true, force: true });
    const code = codeOf(error);
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
    throw error;
  }
  await syncFolder(dirname(path));
  return true;
}

async function writeWhole(path: string, content: string, durable: boolean): Promise<void> {
  const file = await open(path, 'wx', 0o600);
  try {
    await file.write(content);
    if (durable) await file.datasync();
  } finally {
    await file.close();
  }
}

/** Makes a new name in `folder` survive a power cut (on Linux a folder can be opened and synced). */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some platforms (Windows) and file systems cannot sync a folder; the rename still holds.
    const code = codeOf(error);
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM' && code !== 'ENOTSUP') {
      throw error;
    }
  } finally {
    await handle.close();
  }
}
