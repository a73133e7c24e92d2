import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { type AgentMessage, messageToText } from '../../src/index.js';
import { bundledScript } from '../support/bundled-script.js';

const WORKER = bundledScript('test/support/approval-crash-worker.ts');
const directories: string[] = [];

afterAll(async () => {
  for (const d of directories) await rm(d, { recursive: true, force: true });
});

function worker(directory: string, step: string) {
  const run = spawnSync(process.execPath, [WORKER, directory, step], {
    encoding: 'utf8',
  });
  const out = run.stdout.trim();
  return {
    signal: run.signal,
    code: run.status,
    stderr: run.stderr,
    result:
      out === '' ? undefined : (JSON.parse(out) as { status: string; thread: AgentMessage[] }),
  };
}

const lines = (thread: readonly AgentMessage[]) =>
  thread.map((m) => `${m.type}(${m.source}): ${messageToText(m)}`);

describe('a crash between the committed decision and the tool result', () => {
  it('runs the tool again on resume with the same ctx.callId; the thread holds its result once', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'baton-approval-crash-'));
    directories.push(directory);

    const paused = worker(directory, 'pause');
    expect([paused.code, paused.result?.status]).toEqual([0, 'awaiting_input']);

    const killed = worker(directory, 'approve');
    expect([killed.signal, killed.result]).toEqual(['SIGKILL', undefined]);
    expect(await readFile(join(directory, 'ledger.txt'), 'utf8')).toBe('call_refund_1\n');

    const resumed = worker(directory, 'resume');
    expect([resumed.code, resumed.stderr]).toEqual([0, '']);
    expect(await readFile(join(directory, 'ledger.txt'), 'utf8')).toBe(
      'call_refund_1\ncall_refund_1\n',
    );
    expect(resumed.result?.status).toBe('awaiting_input');
    expect(lines(resumed.result?.thread ?? [])).toEqual([
      'TextMessage(user): Refund invoice 42',
      'ToolCallRequestEvent(billing): refund({"invoiceId":"42"})',
      'ToolApprovalRequestEvent(billing): Approval needed: refund({"invoiceId":"42"})',
      'ToolApprovalResponseEvent(user): Approved call call_refund_1',
      'ToolCallExecutionEvent(billing): refund: Refunded 42.',
      'TextMessage(billing): Done: Refunded 42.',
      'UserInputRequestedEvent(billing): Done: Refunded 42.',
    ]);
  });
});
