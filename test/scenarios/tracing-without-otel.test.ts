import { spawnSync } from 'node:child_process';

import { describe, expect, it } from 'vitest';

describe('without @opentelemetry/api installed', () => {
  it('loads, runs every turn and still feeds local span subscribers', () => {
    const run = spawnSync(
      process.execPath,
      [
        '--require',
        './test/support/hide-opentelemetry.cjs',
        '--import',
        'tsx',
        'test/support/run-without-otel.ts',
      ],
      { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      resolvable: false,
      statuses: ['awaiting_input', 'awaiting_input'],
      spans: [
        ['chat', 'child', 's'],
        ['invoke_agent billing', 'child', 's'],
        ['invoke_workflow desk', null, 's'],
      ],
    });
  });
});
