import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends `npm test` with why tests were skipped and how to make them run, one line per reason
 * ("3 tests skipped: no /usr/bin/chromium; install it ..."), from the notes the tests pass to
 * `ctx.skip(note)` (see skip-notes.ts). A skip without a note is listed by name, so it gets one.
 */
export class SkipSummaryReporter implements Reporter {
  readonly #write: (text: string) => void;

  constructor(write: (text: string) => void = (text) => void process.stdout.write(text)) {
    this.#write = write;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const byNote = new Map<string, number>();
    const unexplained: string[] = [];
    let notApplicable = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped') continue;
        // `it.skipIf(...)` in a parametrised suite: the case does not apply to that variant.
        if (test.options.mode !== 'run') notApplicable++;
        else if (result.note === undefined) unexplained.push(test.fullName);
        else byNote.set(result.note, (byNote.get(result.note) ?? 0) + 1);
      }
    }
    const lines = [...byNote].map(([note, count]) => skipped(count, note));
    if (unexplained.length > 0) {
      lines.push(skipped(unexplained.length, `no reason given: ${unexplained.join('; ')}`));
    }
    if (lines.length === 0) return;
    if (notApplicable > 0) {
      lines.push(
        skipped(notApplicable, 'they do not apply to their variant (it.skipIf in the file)'),
      );
    }
    this.#write(
      `\n${lines.join('\n')}\nBATON_REQUIRE_SERVICES=1 turns these skips into failures.\n`,
    );
  }
}

const skipped = (count: number, why: string) =>
  ` ${count} ${count === 1 ? 'test' : 'tests'} skipped: ${why}`;
