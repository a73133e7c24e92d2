import type { CheckpointRecord } from '../../checkpoint/checkpoint-store.js';
import { decode } from './session-log.js';

/** One entry of `session.checkpoints()`. */
export interface CheckpointInfo {
  readonly step: number;
  /** When the step was committed (ISO-8601). */
  readonly at: string;
  /** What happened: `user_input`, `agent_response:billing`, `stop`, `cancel`, `start`, ... */
  readonly event: string;
}

/** The step log as `session.checkpoints()` shows it. */
export function listCheckpoints(
  sessionId: string,
  records: readonly CheckpointRecord[],
): CheckpointInfo[] {
  return records.map((record) => {
    const entry = decode(sessionId, record);
    const at = typeof entry.at === 'number' ? new Date(entry.at).toISOString() : entry.at;
    return { step: entry.step, at, event: entry.event };
  });
}
