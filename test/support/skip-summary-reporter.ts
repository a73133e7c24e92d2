import type { Reporter, TestModule, Vitest } from 'vitest/node';

/**
 * Ends `npm test` with why tests were skipped, one line per reason:
 * - a test that found a service missing passes a note to `ctx.skip(note)` (see skip-notes.ts):
 *   " 3 tests skipped: no PostgreSQL at 127.0.0.1:5432; start it (...)", grouped by note;
 * - a test that does not apply to a variant of a parametrised suite (`it.skipIf(...)`) is listed
 *   by name, and its name says where it applies: " skipped, not for this variant: … (file store
 *   only)" — unless the run picked its tests (`-t`, `.only`), which skips the others alike;
 * - a skip without either is listed by name as unexplained, so that it gets a note.
 */
export class SkipSummaryReporter implements Reporter {
  readonly #write: (text: string) => void;
  #byName = false;

  constructor(write: (text: string) => void = (text) => void process.stdout.write(text)) {
    this.#write = write;
  }

  onInit(vitest: Vitest): void {
    this.#byName = vitest.config.testNamePattern !== undefined;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const byNote = new Map<string, number>();
    const unexplained: string[] = [];
    const notApplicable: string[] = [];
    let picked = this.#byName;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        if (test.options.mode === 'only') picked = true;
        const result = test.result();
        if (result.state !== 'skipped') continue;
        if (test.options.mode !== 'run') notApplicable.push(test.fullName);
        else if (result.note === undefined) unexplained.push(test.fullName);
        else byNote.set(result.note, (byNote.get(result.note) ?? 0) + 1);
      }
    }
    const lines = [...byNote].map(([note, count]) => skipped(count, note));
    if (unexplained.length > 0) {
      lines.push(skipped(unexplained.length, `no reason given: ${unexplained.join('; ')}`));
    }
    // Skips at run time are the missing services, which the environment can turn into failures.
    if (lines.length > 0) lines.push('BATON_REQUIRE_SERVICES=1 turns these skips into failures.');
    if (!picked)
      for (const name of notApplicable) lines.push(` skipped, not for this variant: ${name}`);
    if (lines.length > 0) this.#write(`\n${lines.join('\n')}\n`);
  }
}

const skipped = (count: number, why: string) =>
  ` ${count} ${count === 1 ? 'test' : 'tests'} skipped: ${why}`;
