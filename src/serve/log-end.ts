import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import { stepViews } from '../engine/log/step-messages.js';
import type { CheckpointedSession } from '../engine/session/workflow-runner.js';
import type { Cursor } from './event-cursor.js';

/**
 * Where a stored session's log ends: its last step and how many messages that step appended.
 * `known`: where the latest run in this process left it; `lastStep`: the log's last step when the
 * request's owner check (or the run's start) read it just before. When the two agree nothing is
 * read; given `lastStep`, its record alone; after a run here, one read from that run's last step
 * shows whether the log is still there and what came after it (only a step another process
 * committed is decoded); else the session's info, then its last record alone.
 */
export async function logEnd(
  store: CheckpointStore,
  session: CheckpointedSession,
  known: Cursor | undefined,
  lastStep: number | undefined,
): Promise<Cursor> {
  const id = session.id;
  // The log's last step, read with the owner just before: still where the last run here left it.
  if (known !== undefined && known.step > 0 && lastStep === known.step) return known;
  if (lastStep === undefined && known !== undefined && known.step > 0) {
    const records = await store.read(id, { from: { after: known.step - 1 } });
    const last = records.at(-1);
    if (records[0]?.step === known.step && last !== undefined) {
      if (last.step === known.step) return known;
      return { step: last.step, n: stepViews(id, [last]).at(-1)?.messages.length ?? 0 };
    }
  }
  // Given the last step (read in the owner lookup, or as the run took its lease), its record alone.
  const step = lastStep ?? (await session.info()).step;
  if (step === 0) return { step: 0, n: 0 };
  const [view] = stepViews(id, await store.read(id, { from: { after: step - 1 }, upTo: step }));
  return { step: view?.step ?? 0, n: view?.messages.length ?? 0 };
}
