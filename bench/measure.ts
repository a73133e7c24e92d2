// Runs one measurement script of bench/ in a fresh Node process (with tsx) and returns the JSON
// object its last line prints; `{}`, with the script's first error lines on stderr, when it fails.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** What a measurement prints: its figures by name. */
export type Figures = Record<string, unknown>;

const here = import.meta.dirname;
const tsx = join(here, '..', 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');

export function measure(script: string, args: string[] = [], nodeArgs: string[] = []): Figures {
  const run = spawnSync(
    process.execPath,
    [...nodeArgs, '--import', tsx, join(here, script), ...args],
    { encoding: 'utf8', maxBuffer: 16 * 2 ** 20 },
  );
  const line = run.stdout.trim().split('\n').at(-1);
  if (run.status !== 0 || line === undefined || line === '') {
    console.error(
      `${script} ${args.join(' ')} failed:\n${run.stderr.trim().split('\n').slice(0, 8).join('\n')}`,
    );
    return {};
  }
  return JSON.parse(line) as Figures;
}
