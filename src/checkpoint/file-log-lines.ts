import { CheckpointError } from '../errors.js';
import { isRecord } from '../unknown-value.js';
import type { CheckpointRecord } from './checkpoint-store.js';

// The lines of a FileCheckpointStore log, one record per line, and the errors that name what is
// wrong with a damaged file. A line's first character tells its format, so a log may mix them:
//
// - format 2, `<step><kind><data>`: the step in decimal, `=` for a snapshot or `+` for a step
//   record, then the data as it is (no quotes, nothing escaped): `7+3fa0c2d1[3,7,…]`.
// - format 1, `{"step":7,"snapshot":false,"data":"…"}`: what the store wrote before issue 19; it
//   still reads it, and still writes it for data a format 2 line cannot hold (a newline, or an
//   unpaired surrogate, which UTF-8 cannot carry).

/** How every format 1 line starts. */
const FORMAT_1_START = Buffer.from('{"step":');

/** A format 2 line's header: a safe integer (at most 16 digits), then the record's kind. */
const FORMAT_2_HEADER = /^(0|[1-9][0-9]{0,15})([=+])/;

/** What a format 2 line cannot hold: a newline ends the line, a lone surrogate is not UTF-8. */
const NOT_IN_FORMAT_2 = /[\n\p{Cs}]/u;

/** How many bytes of a tail `isRecordStart()` needs to judge it: 16 digits and the kind. */
export const RECORD_START_LENGTH = 17;

/** The line that stores `record`, newline included. */
export function formatLine(record: CheckpointRecord): string {
  const { step, snapshot, data } = record;
  if (Number.isSafeInteger(step) && step >= 0 && !NOT_IN_FORMAT_2.test(data)) {
    return `${step}${snapshot ? '=' : '+'}${data}\n`;
  }
  return `${JSON.stringify({ step, snapshot, data })}\n`;
}

/**
 * True when `bytes` (the first `RECORD_START_LENGTH` bytes after the last newline, or fewer) can
 * be the start of a line of either format: what a crash mid-append leaves behind.
 */
export function isRecordStart(bytes: Buffer): boolean {
  const n = Math.min(bytes.length, FORMAT_1_START.length);
  if (n > 0 && bytes.subarray(0, n).equals(FORMAT_1_START.subarray(0, n))) return true;
  let digits = 0;
  while (digits < bytes.length && isDigit(bytes[digits])) digits++;
  if (digits === 0 || digits > 16) return false;
  const kind = bytes[digits];
  return kind === undefined || kind === 0x3d || kind === 0x2b; // end, `=` or `+`
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
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

/** One line of a log file (either format, without its newline) as a record; else a `CheckpointError`. */
export function parseLine(
  sessionId: string,
  path: string,
  line: string,
  lineNumber: number,
  previousStep = 0,
): CheckpointRecord {
  const where = lineNumber > 0 ? `line ${lineNumber} of ${path}` : `the last line of ${path}`;
  if (line.startsWith('{')) return parseFormat1(sessionId, where, line, previousStep);
  const header = FORMAT_2_HEADER.exec(line);
  const step = Number(header?.[1]);
  if (header === null || !Number.isSafeInteger(step)) {
    throw new CheckpointError(
      sessionId,
      previousStep + 1,
      `${where} is not a step record (a line starts with "{", or with a step number and "=" ` +
        'or "+")',
    );
  }
  return { step, snapshot: header[2] === '=', data: line.slice(header[0].length) };
}

function parseFormat1(
  sessionId: string,
  where: string,
  line: string,
  previousStep: number,
): CheckpointRecord {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new CheckpointError(sessionId, previousStep + 1, `${where} is not valid JSON`, {
      cause: error,
    });
  }
  if (
    !isRecord(value) ||
    typeof value.step !== 'number' ||
    !Number.isInteger(value.step) ||
    typeof value.snapshot !== 'boolean' ||
    typeof value.data !== 'string'
  ) {
    throw new CheckpointError(sessionId, previousStep + 1, `${where} is not a step record`);
  }
  return { step: value.step, snapshot: value.snapshot, data: value.data };
}

/**
 * The records of a whole log file's text. A last line without its newline is a write cut short by
 * a crash: not part of the log. A log is created whole, so a file with no complete record at all
 * is damage, and so is a tail that cannot be the start of a record.
 */
export function parseLog(sessionId: string, path: string, text: string): CheckpointRecord[] {
  const complete = text.lastIndexOf('\n') + 1;
  if (complete === 0) throw noRecord(sessionId, path);
  if (
    complete < text.length &&
    !isRecordStart(Buffer.from(text.slice(complete, complete + RECORD_START_LENGTH)))
  ) {
    throw badTail(sessionId, path);
  }
  const records: CheckpointRecord[] = [];
  const lines = text.slice(0, complete).split('\n');
  lines.pop();
  for (const [i, line] of lines.entries()) {
    const previous = records.at(-1)?.step;
    const record = parseLine(sessionId, path, line, i + 1, previous ?? 0);
    // Appends only ever added the next step: anything else was moved or copied by hand.
    if (previous !== undefined && record.step !== previous + 1) {
      const detail = `line ${i + 1} of ${path} holds step ${record.step} after step ${previous}`;
      throw new CheckpointError(sessionId, previous + 1, detail);
    }
    records.push(record);
  }
  return records;
}
