import { defineConfig } from 'vitest/config';

import { SkipSummaryReporter } from './test/support/skip-summary-reporter.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    // The summary ends with why tests were skipped (a service is missing) and how to run them.
    reporters: ['default', new SkipSummaryReporter()],
  },
});
