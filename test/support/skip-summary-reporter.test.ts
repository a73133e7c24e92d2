import { resolve } from 'node:path';

import { describe, expect, it } from 'vitest';
import { startVitest } from 'vitest/node';

import { SkipSummaryReporter } from './skip-summary-reporter.js';

const root = resolve(import.meta.dirname, '../..');

/** What the reporter writes at the end of a run of `file` (a fixture under test/fixtures/). */
async function summaryOf(file: string, testNamePattern?: string): Promise<string> {
  let written = '';
  const vitest = await startVitest('test', [], {
    root,
    config: false,
    include: [file],
    ...(testNamePattern === undefined ? {} : { testNamePattern }),
    watch: false,
    reporters: [new SkipSummaryReporter((text) => (written += text))],
  });
  await vitest.close();
  return written;
}

describe('SkipSummaryReporter', () => {
  it('gives every skip a one-line reason: its note, its name, or that it has none', async () => {
    expect(await summaryOf('test/fixtures/skip-reasons.fixture.ts')).toBe(
      [
        '',
        ' 1 test skipped: no service at 127.0.0.1:1; start it',
        ' 1 test skipped: no reason given: finds another missing without a note',
        'BATON_REQUIRE_SERVICES=1 turns these skips into failures.',
        ' skipped, not for this variant: the memory store > reads a torn line (file store only)',
        '',
      ].join('\n'),
    );
  });

  it('lists no test by name when the run picked its tests by name (-t)', async () => {
    expect(await summaryOf('test/fixtures/skip-reasons.fixture.ts', 'missing')).toBe(
      [
        '',
        ' 1 test skipped: no service at 127.0.0.1:1; start it',
        ' 1 test skipped: no reason given: finds another missing without a note',
        'BATON_REQUIRE_SERVICES=1 turns these skips into failures.',
        '',
      ].join('\n'),
    );
  });
});
