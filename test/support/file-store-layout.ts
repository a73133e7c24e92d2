import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// A FileCheckpointStore directory as tests see it: since issue 27 each record is a file of its
// own in `<stem>.steps/`, and the lease a numbered file in `<stem>.leases/`; the store still reads
// the one-file logs (`<stem>.log`, one line per record) it wrote before.

/** The text of every file under `directory`, folders included, in name order. */
export async function allFileTexts(directory: string): Promise<string[]> {
  const texts: string[] = [];
  for (const entry of (await readdir(directory, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) texts.push(...(await allFileTexts(path)));
    else texts.push(await readFile(path, 'utf8'));
  }
  return texts;
}

/**
 * Turns each session's `.steps` folder into the one-file log the store wrote before (the same
 * lines, in step order) and drops the lease folders: the layout tests that damage a log byte by
 * byte work on, and which the store reads as it always did.
 */
export async function foldIntoOneFileLogs(directory: string): Promise<void> {
  for (const name of await readdir(directory)) {
    const path = join(directory, name);
    if (name.endsWith('.leases')) await rm(path, { recursive: true });
    if (!name.endsWith('.steps')) continue;
    const steps = (await readdir(path)).filter((n) => /^[0-9]+$/.test(n)).map(Number);
    steps.sort((a, b) => a - b);
    const lines = await Promise.all(steps.map((n) => readFile(join(path, String(n)), 'utf8')));
    await writeFile(join(directory, `${name.slice(0, -'.steps'.length)}.log`), lines.join(''));
    await rm(path, { recursive: true });
  }
}
