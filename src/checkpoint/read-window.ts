import type { CheckpointRecord, ReadOptions } from './checkpoint-store.js';

/**
 * Selects what `read()` returns from a whole log in step order: the shared rule of the stores
 * that hold a log in memory or read it whole.
 */
export function readWindow(
  log: readonly CheckpointRecord[],
  options: ReadOptions = {},
): CheckpointRecord[] {
  const upTo = options.upTo ?? Number.POSITIVE_INFINITY;
  const from = options.from ?? 'snapshot';
  const upToEnd = log.filter((r) => r.step <= upTo);
  if (from === 'start') return upToEnd;
  if (from === 'snapshot') {
    let start = -1;
    for (let i = upToEnd.length - 1; i >= 0; i--) {
      if (upToEnd[i]?.snapshot) {
        start = i;
        break;
      }
    }
    return start < 0 ? [] : upToEnd.slice(start);
  }
  return upToEnd.filter((r) => r.step > from.after);
}

/** True when `record` may be appended to a log whose last record is `last`. */
export function continuesLog(
  last: CheckpointRecord | undefined,
  record: CheckpointRecord,
): boolean {
  return last === undefined ? record.snapshot : record.step === last.step + 1;
}
