// Made by `baton test record samples/devtools-desk.ts --session desk-refund`: session
// "desk-refund" replayed with its recorded model answers and tool results (beside it, in
// desk-refund.recording.json). It fails where the workflow now goes another way; record the session
// again after a change you meant.
import { readFileSync } from 'node:fs';

import { expect, it } from 'vitest';

import { MemoryCheckpointStore, replay } from '../../src/index.js';
import { createWorkflow } from '../../samples/devtools-desk.js';

it('replays session "desk-refund" as recorded', async () => {
  const recording = JSON.parse(
    readFileSync(new URL('./desk-refund.recording.json', import.meta.url), 'utf8'),
  );
  const workflow = await createWorkflow({ checkpointStore: new MemoryCheckpointStore() });
  const report = await replay(workflow, recording);
  const d = report.divergence;
  if (d !== undefined) {
    expect.fail(
      `Replay of session "${recording.sessionId}" diverged at turn ${d.turn} (${d.agent}): ` +
        `${d.what} was ${JSON.stringify(d.expected)} when recorded, ${JSON.stringify(d.actual)} now.`,
    );
  }
  expect(report.ok).toBe(true);
});
