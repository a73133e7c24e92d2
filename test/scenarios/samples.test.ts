import { spawnSync } from 'node:child_process';

import { describe, expect, it } from 'vitest';

/** Runs a sample as a user would (`npx tsx samples/<name>.ts`) and returns what it printed. */
function runSample(name: string): string {
  const run = spawnSync(process.execPath, ['--import', 'tsx', `samples/${name}.ts`], {
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout;
}

describe('samples', () => {
  it('termination.ts stops on APPROVE, then on APPROVE and FINAL together', () => {
    const out = runSample('termination');
    const [first, second] = out.split('== Run 2');
    expect(first).toContain('---------- TextMessage (critic) ----------\nMuch better. APPROVE\n');
    expect(first).toMatch(/Number of messages: 5\nFinish reason: Text 'APPROVE' mentioned\n/);
    expect(second).toMatch(
      /Number of messages: 3\nFinish reason: Text 'FINAL' mentioned, Text 'APPROVE' mentioned\n/,
    );
  });

  it('escalation.ts stops when billing escalates and continues with technical', () => {
    const out = runSample('escalation');
    expect(out).toContain(
      'payment_log: INV-1002: 3 attempts, all failed with "gateway timeout (504)"',
    );
    expect(out).toContain('Stopped for review: Handoff to technical from billing detected.');
    expect(out).toContain(
      'technical asks the user: The payment gateway timed out; I restarted it. Please try paying INV-1002 again.',
    );
  });

  it('support-desk.ts looks the invoice up, refunds it after the user agrees, and stops on bye', () => {
    const out = runSample('support-desk');
    expect(out).toContain('INV-1001 ($49) was charged twice. Shall I refund the duplicate?');
    expect(out).toContain('refund_duplicate_charge: {"invoiceId":"INV-1001","refunded":49}');
    expect(out).toContain("[terminated: Text 'bye' mentioned]");
    expect(out).toContain('INV-1001 is now charged 1 time(s).');
  });
});
