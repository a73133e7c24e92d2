import { crc32 } from 'node:zlib';

import { z } from 'zod';

import type { CheckpointRecord } from '../../checkpoint/checkpoint-store.js';
import { CheckpointError } from '../../errors.js';
import { isRecord } from '../../unknown-value.js';
import { firstIssue } from '../../zod-issues.js';
import {
  compactStep,
  readStepRecord,
  STEP_VERSION,
  type StoredStep,
  stepRecordBody,
  storedContent,
} from './compact-step.js';
import { readLegacyStep } from './legacy-records.js';
import type { CommittedStep, SessionState } from '../state/session-state.js';
import { replayStep } from './replay-step.js';
import type { StatePatchOp } from '../../agents/conversation-state.js';
import type { StateTrail } from './state-refusal.js';
import { type ExpectedWorkflow, settleLog } from './take-over.js';

export type { ExpectedWorkflow } from './take-over.js';

/** The version of the snapshot format; a snapshot of another version is refused with advice. */
export const RECORD_VERSION = 1;

/** What identifies a workflow's shape: participants, topology and routing. */
export type WorkflowDescriptor = Readonly<Record<string, unknown>>;

/** A record that starts a log (or a fork, a reset, a loaded state): the whole state. */
const SnapshotSchema = z.object({
  v: z.number(),
  session: z.string(),
  step: z.number().int().positive(),
  at: z.string(),
  event: z.string(),
  fp: z.string(),
  workflow: z.record(z.string(), z.unknown()),
  /** The writer's state version (`StateOption.version`); absent in records of version 1. */
  sv: z.number().int().positive().optional(),
  state: z.unknown(),
  /** Why the run stopped, when the step this snapshot records stopped it. */
  stopReason: z.string().optional(),
});

type Snapshot = z.infer<typeof SnapshotSchema>;

/** The workflow that wrote a record: its fingerprint and conversation state version. */
export interface Writer {
  readonly fingerprint: string;
  readonly version: number;
}

/**
 * Encodes a committed step as a sealed format 3 record (see `compactStep`, `stepRecordBody`);
 * `writer` when the records before it were written by another workflow.
 */
export function encodeStep(
  sessionId: string,
  step: CommittedStep,
  writer?: Writer,
): CheckpointRecord {
  const compact = compactStep(step);
  const entry =
    writer === undefined
      ? compact
      : { ...compact, w: { f: writer.fingerprint, v: writer.version } };
  return {
    step: entry.s,
    snapshot: false,
    data: seal(sessionId, entry.s, stepRecordBody(entry)),
  };
}

/** Encodes the whole state (a session's first record, a fork, a reset or a loaded state). */
export function encodeSnapshot(
  sessionId: string,
  state: SessionState,
  event: string,
  writer: Writer & { readonly descriptor: WorkflowDescriptor },
  stopReason?: string,
): CheckpointRecord {
  const record: Snapshot = {
    v: RECORD_VERSION,
    session: sessionId,
    step: state.step,
    at: new Date().toISOString(),
    event,
    fp: writer.fingerprint,
    workflow: writer.descriptor,
    ...(writer.version === 1 ? {} : { sv: writer.version }),
    state,
    ...(stopReason === undefined ? {} : { stopReason }),
  };
  return {
    step: record.step,
    snapshot: true,
    data: seal(sessionId, record.step, JSON.stringify(record)),
  };
}

/**
 * Prefixes a record with a CRC-32 of the session id, the step and the body, so a flipped bit, an
 * edit or a record moved to another session or step is caught before anything is applied.
 */
function seal(sessionId: string, step: number, body: string): string {
  return checksum(sessionId, step, body) + body;
}

function checksum(sessionId: string, step: number, body: string): string {
  return crc32(`${sessionId}\n${step}\n${body}`).toString(16).padStart(8, '0');
}

/** Checks and reads one record (see `replayLog`). @throws CheckpointError naming the step. */
export function decode(sessionId: string, record: CheckpointRecord): Snapshot | StoredStep {
  const body = record.data.slice(8);
  if (
    record.data.length < 8 ||
    record.data.slice(0, 8) !== checksum(sessionId, record.step, body)
  ) {
    throw new CheckpointError(
      sessionId,
      record.step,
      'its checksum does not match (the record is corrupt, was edited, or belongs to another session or step)',
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (error) {
    throw new CheckpointError(
      sessionId,
      record.step,
      'the record is not valid JSON (truncated or edited)',
      {
        cause: error,
      },
    );
  }
  if (record.snapshot) return decodeSnapshot(sessionId, record, raw);
  let entry: StoredStep;
  if (Array.isArray(raw)) {
    entry = decodeStepRecord(sessionId, record, raw);
  } else {
    const legacy = readLegacyStep(raw);
    if ('version' in legacy) throw unknownStepVersion(sessionId, record, legacy.version);
    if ('malformed' in legacy) {
      throw new CheckpointError(
        sessionId,
        record.step,
        `the step record is malformed at ${legacy.malformed}`,
      );
    }
    entry = legacy;
  }
  if (entry.step !== record.step) {
    throw new CheckpointError(sessionId, record.step, `the record says it is step ${entry.step}`);
  }
  return entry;
}

function decodeSnapshot(sessionId: string, record: CheckpointRecord, raw: unknown): Snapshot {
  const parsed = SnapshotSchema.safeParse(raw);
  if (!parsed.success) {
    throw new CheckpointError(
      sessionId,
      record.step,
      `the snapshot is malformed at ${firstIssue(parsed.error).text}`,
    );
  }
  const entry = parsed.data;
  if (entry.v !== RECORD_VERSION) {
    throw new CheckpointError(
      sessionId,
      record.step,
      `the record has format version ${entry.v}, this version of Baton reads version ${RECORD_VERSION}; ` +
        'resume it with the Baton version that wrote it',
    );
  }
  if (entry.step !== record.step || entry.session !== sessionId) {
    throw new CheckpointError(
      sessionId,
      record.step,
      `the record says it is step ${entry.step} of session "${entry.session}"`,
    );
  }
  return entry;
}

/** A format 3 step record (a JSON list) read into its content. */
function decodeStepRecord(
  sessionId: string,
  record: CheckpointRecord,
  raw: readonly unknown[],
): StoredStep {
  if (raw[0] !== STEP_VERSION) throw unknownStepVersion(sessionId, record, raw[0]);
  const entry = readStepRecord(raw);
  if (typeof entry === 'string') {
    throw new CheckpointError(sessionId, record.step, `the step record is malformed at ${entry}`);
  }
  return storedContent(entry);
}

function unknownStepVersion(
  sessionId: string,
  record: CheckpointRecord,
  version: unknown,
): CheckpointError {
  return new CheckpointError(
    sessionId,
    record.step,
    `the step record has format version ${JSON.stringify(version)}, this ` +
      `version of Baton reads versions 1 to ${STEP_VERSION}; resume it with the Baton version that wrote it`,
  );
}

/** The step log of a session read back: the state, who wrote it, and the migration it needs. */
export interface ReplayedLog {
  readonly state: SessionState;
  /** The workflow that wrote the last records. */
  readonly writer: Writer;
  /**
   * The state patch that turned an older state version's conversation state into this workflow's
   * (`state` holds its result already); to be committed with the session's next step.
   */
  readonly migration?: readonly StatePatchOp[] | undefined;
}

/**
 * Rebuilds a session's state from its records: a snapshot, then each step read back as the typed
 * step it records and applied by `applyStep`, the reducer that made it. Throws `CheckpointError`
 * naming the step for anything unreadable, `ConfigError` when another workflow wrote the session
 * and this one cannot take it over (see `settleLog`).
 */
export function replayLog(
  sessionId: string,
  records: readonly CheckpointRecord[],
  expected: ExpectedWorkflow,
  base?: { readonly state: SessionState; readonly writer: Writer },
): ReplayedLog {
  let state: unknown = base?.state;
  let writer = base?.writer;
  /** The state the steps since the last snapshot made, and its thread's length. */
  let replayed: { state: SessionState; length: number } | undefined;
  let lastStep = base?.state.step;
  /** The conversation state at the last snapshot, then after each step, to name one that broke it. */
  const patched: StateTrail['patched'] = [];
  for (const record of records) {
    const entry = decode(sessionId, record);
    if (lastStep !== undefined && record.step !== lastStep + 1 && !record.snapshot) {
      throw new CheckpointError(
        sessionId,
        record.step,
        `it follows step ${lastStep}; a step is missing`,
      );
    }
    if ('state' in entry) {
      if (
        entry.fp !== expected.fingerprint &&
        JSON.stringify(entry.workflow) === JSON.stringify(expected.descriptor)
      ) {
        throw new CheckpointError(sessionId, record.step, 'its workflow fingerprint is damaged');
      }
      writer = { fingerprint: entry.fp, version: entry.sv ?? 1 };
      replayed = undefined;
      state = entry.state;
      patched.length = 0;
      patched.push({
        step: record.step,
        data: isRecord(entry.state) ? entry.state.data : undefined,
      });
    } else {
      if (entry.writer !== undefined) writer = entry.writer;
      if (state === undefined) {
        throw new CheckpointError(sessionId, record.step, 'the log does not start with a snapshot');
      }
      replayed ??= startOf(state);
      if (replayed === undefined) {
        throw new CheckpointError(sessionId, record.step, 'the snapshot before it is malformed');
      }
      const step = entry.typed(replayed.length);
      if (typeof step === 'string') throw new CheckpointError(sessionId, record.step, step);
      // The one reducer, as the run that made the step applied it; the state is checked at the end.
      replayed.state = replayStep(sessionId, record.step, replayed.state, step);
      replayed.length += step.append?.length ?? 0;
      if (step.statePatch !== undefined) {
        patched.push({ step: record.step, data: replayed.state.data });
      }
    }
    lastStep = record.step;
  }
  if (replayed !== undefined) state = replayed.state;
  if (state === undefined || writer === undefined || lastStep === undefined) {
    throw new CheckpointError(sessionId, 0, 'the log is empty');
  }
  if (base !== undefined && state === base.state) return { state: base.state, writer };
  return settleLog(sessionId, state, { patched, lastStep }, writer, expected);
}

/**
 * Where the steps after a snapshot (or a caught-up state) start: the state as the reducer takes
 * it, unchecked until the end of the log, or undefined when it has no thread and bookmarks to
 * build on.
 */
function startOf(state: unknown): { state: SessionState; length: number } | undefined {
  if (typeof state !== 'object' || state === null) return undefined;
  if (!('thread' in state) || !Array.isArray(state.thread)) return undefined;
  if (!('bookmarks' in state) || typeof state.bookmarks !== 'object' || state.bookmarks === null) {
    return undefined;
  }
  // Unchecked (a snapshot's state is checked with the state the log leads to): typed as it claims.
  return { state: state as SessionState, length: state.thread.length };
}
