// Issue 34: the demo desk's refunds path (the lookup verifies the customer, billing hands over to
// refunds through the `isVerified` guard, a person approves the full refund) records and replays
// ok, from the session's store in another workflow object, with recorded and with live tools.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { FileCheckpointStore } from '../../src/checkpoint/file-checkpoint-store.js';
import { createSupportDesk } from '../../src/cli/demo-desk.js';
import { OfflineDeskModel } from '../../src/cli/demo-model.js';
import { replay } from '../../src/engine/recording/replay.js';
import { approve } from '../../src/messages/message-factories.js';

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
  });
});
