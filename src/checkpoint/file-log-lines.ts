import { CheckpointError } from '../errors.js';
import type { CheckpointRecord } from './checkpoint-store.js';

// The lines of a FileCheckpointStore log: one JSON record per line, and the errors that name what
// is wrong with a damaged file.

/** How every line of a log starts (`JSON.stringify({ step, snapshot, data })`). */
export const RECORD_START = Buffer.from('{"step":');

/** True when `bytes` can be the start of a record: what a crash mid-append leaves behind. */
export function isRecordStart(bytes: Buffer): boolean {
  const n = Math.min(bytes.length, RECORD_START.length);
  return bytes.subarray(0, n).equals(RECORD_START.subarray(0, n));
}

export function noRecord(sessionId: string, path: string): CheckpointError {
  return new CheckpointError(
    sessionId,
    1,
    `the log file ${path} holds no complete record (it is empty, or was overwritten or cut at ` +
      'the head; a log is created whole with its first record)',
  );
}

export function badTail(sessionId: string, path: string): CheckpointError {
  return new CheckpointError(
    sessionId,
    1,
    `the log file ${path} ends in bytes that are not a record (only a record cut short by a ` +
      'crash may follow the last one)',
  );
}

/** One line of a log file as a record; anything else is a `CheckpointError`. */
export function parseLine(
  sessionId: string,
  path: string,
  line: string,
  lineNumber: number,
  previousStep = 0,
): CheckpointRecord {
  const where = lineNumber > 0 ? `line ${lineNumber} of ${path}` : `the last line of ${path}`;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new CheckpointError(sessionId, previousStep + 1, `${where} is not valid JSON`, {
      cause: error,
    });
  }
  const r = value as Partial<CheckpointRecord> | null;
  if (
    r === null ||
    typeof r !== 'object' ||
    !Number.isInteger(r.step) ||
    typeof r.snapshot !== 'boolean' ||
    typeof r.data !== 'string'
  ) {
    throw new CheckpointError(sessionId, previousStep + 1, `${where} is not a step record`);
  }
  return { step: r.step as number, snapshot: r.snapshot, data: r.data };
}
