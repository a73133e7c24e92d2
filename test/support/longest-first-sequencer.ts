import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each slow file took, by path from the project root (scripts/file-seconds.mjs). */
type FileSeconds = Readonly<Record<string, number>>;

/**
 * Vitest's own order puts the longest files first only when it has timings cached from an earlier
 * run, which a clean clone (CI) has not: there the longest (the chaos run, the crash matrix) started
 * after seven minutes, and the run's end waited on them. This order starts the files in
 * test/support/file-seconds.json longest first, then the rest in vitest's order.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = JSON.parse(
      readFileSync(new URL('file-seconds.json', import.meta.url), 'utf8'),
    ) as FileSeconds;
    const root = this.ctx.config.root;
    return longestFirst(await super.sort(files), (file) => seconds[relative(root, file.moduleId)]);
  }
}

/** `files` with those of known seconds first, longest first; the others keep their order. */
export function longestFirst<T>(
  files: readonly T[],
  secondsOf: (file: T) => number | undefined,
): T[] {
  const known = files.filter((file) => secondsOf(file) !== undefined);
  known.sort((a, b) => (secondsOf(b) ?? 0) - (secondsOf(a) ?? 0));
  return [...known, ...files.filter((file) => secondsOf(file) === undefined)];
}
