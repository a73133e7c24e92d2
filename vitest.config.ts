import { defineConfig } from 'vitest/config';

import { LongestFirstSequencer } from './test/support/longest-first-sequencer.js';
import { SkipSummaryReporter } from './test/support/skip-summary-reporter.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    // Many files wait on child processes, leases and queues rather than the CPU: three workers on
    // the 2-core CI machine ran the whole suite in 427 s where the default took about 860 s.
    maxWorkers: 3,
    // The longest files first, from measured seconds: a clean clone has no timings of its own.
    sequence: { sequencer: LongestFirstSequencer },
    // The summary ends with why tests were skipped (a service is missing) and how to run them.
    reporters: ['default', new SkipSummaryReporter()],
  },
});
