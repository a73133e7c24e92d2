// Issue 34: the demo desk's refunds path (the lookup verifies the customer, billing hands over to
// refunds through the `isVerified` guard, a person approves the full refund) records and replays
// ok, from the session's store in another workflow object, with recorded and with live tools; and
// a session of the demo itself becomes a test with `baton test record`.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { FileCheckpointStore } from '../../src/checkpoint/file-checkpoint-store.js';
import { createSupportDesk } from '../../src/cli/demo-desk.js';
import { OfflineDeskModel } from '../../src/cli/demo-model.js';
import { replay } from '../../src/engine/recording/replay.js';
import { type DemoTerminal, runDemo } from '../../src/cli/demo.js';
import { testCommand } from '../../src/cli/test-command.js';
import { parseRecording } from '../../src/engine/recording/recording.js';
import { approve } from '../../src/messages/message-factories.js';
import { createWorkflow } from '../../samples/demo-desk.js';

const deskOver = (dir?: string) =>
  createSupportDesk(
    (role) => new OfflineDeskModel(role),
    dir === undefined ? {} : { checkpointStore: new FileCheckpointStore(dir) },
  );

describe('recording the demo desk (API.md §19 with §18)', () => {
  it('records the refunds path (verification, then refunds with an approval) and replays it ok', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-demo-record-'));
    const session = deskOver(dir).workflow.session('full-refund');
    const paused = await session.run('I want a full refund for invoice INV-1002');
    expect(paused.pendingRequest).toMatchObject({ kind: 'approval', agent: 'refunds' });
    const done = await session.run((paused.pendingRequest?.calls ?? []).map((c) => approve(c.id)));
    expect(done.pendingRequest?.prompt).toBe(
      'Done: $120.00 refunded in full on INV-1002 (refund R-1002-1). It shows on your statement within 3 days.',
    );

    // Recorded from the store, by another workflow object (as `baton test record --store` does).
    const recording = await deskOver(dir).workflow.session('full-refund').record();
    expect(JSON.parse(JSON.stringify(recording))).toEqual(recording);
    expect(
      recording.turns.map((t) => [t.agent, t.handoff ?? null, t.stateUpdates ?? null]),
    ).toEqual([
      ['triage', 'billing', null],
      [
        'billing',
        'refunds',
        [
          {
            callId: recording.turns[1]?.results[0]?.callId,
            ops: [
              { op: 'replace', path: '/invoiceId', value: 'INV-1002' },
              { op: 'replace', path: '/customer', value: 'Ada Byron' },
              { op: 'replace', path: '/verified', value: true },
            ],
          },
        ],
      ],
      ['refunds', null, null],
    ]);
    expect(recording.turns[1]?.results[0]?.name).toBe('lookup_invoice');
    expect(recording.runs.map((r) => [r.turns, r.status, r.stateUpdates ?? null])).toEqual([
      [3, 'awaiting_input', null],
      [3, 'awaiting_input', null],
    ]);

    expect(await replay(deskOver().workflow, recording)).toEqual({ ok: true, turns: 3 });
    expect(await replay(deskOver().workflow, recording, { tools: 'live' })).toEqual({
      ok: true,
      turns: 3,
    });

    // Redacted, the state's strings are too; with recorded tools it replays as well.
    const redacted = await session.record({
      redact: (text) => text.replaceAll('Ada Byron', '[name]'),
    });
    expect(JSON.stringify(redacted)).not.toContain('Ada Byron');
    expect(redacted.turns[1]?.stateUpdates?.[0]?.ops[1]).toEqual({
      op: 'replace',
      path: '/customer',
      value: '[name]',
    });
    expect(await replay(deskOver().workflow, redacted)).toEqual({ ok: true, turns: 3 });
  });

  it('a refund in the demo (npm start) becomes a test with baton test record, which replays ok', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-demo-record-'));
    const lines = ['I want a full refund for invoice INV-1002', 'y', 'bye'];
    const written: string[] = [];
    const terminal: DemoTerminal = {
      color: false,
      echoInput: true,
      write: (text) => written.push(text),
      onInterrupt: () => {},
      ask: async () => lines.shift() ?? null,
    };
    const code = await runDemo(terminal, {
      env: { PATH: process.env.PATH ?? '' },
      sessionId: 'demo-refund',
      storeDirectory: join(dir, '.baton'),
    });
    expect(code).toBe(0);
    expect(written.join('')).toContain(
      'Desk state: {"invoiceId":"INV-1002","customer":"Ada Byron","verified":true}',
    );

    const out = join(dir, 'test', 'demo-refund.test.ts');
    const args = [
      'samples/demo-desk.ts',
      '--session',
      'demo-refund',
      '--store',
      join(dir, '.baton'),
    ];
    expect(await testCommand(['record', ...args, '--out', out])).toBe(0);
    const recording = parseRecording(
      JSON.parse(readFileSync(join(dir, 'test', 'demo-refund.recording.json'), 'utf8')),
    );
    expect(recording.turns.map((t) => t.agent)).toEqual(['triage', 'billing', 'refunds']);
    expect(recording.turns[1]?.stateUpdates?.map((u) => u.ops.map((o) => o.path))).toEqual([
      ['/invoiceId', '/customer', '/verified'],
    ]);
    const workflow = createWorkflow({
      checkpointStore: new FileCheckpointStore(mkdtempSync(join(tmpdir(), 'baton-demo-replay-'))),
    });
    expect(await replay(workflow, recording)).toEqual({ ok: true, turns: 3 });
  });
});
