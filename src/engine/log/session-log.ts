import { crc32 } from 'node:zlib';

import { z } from 'zod';

import type { CheckpointRecord } from '../../checkpoint/checkpoint-store.js';
import { CheckpointError, ConfigError } from '../../errors.js';
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
import type { StateCheck } from '../state/state-validator.js';
import type { StateProblem } from '../../agents/conversation-state.js';

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
  state: z.unknown(),
  /** Why the run stopped, when the step this snapshot records stopped it. */
  stopReason: z.string().optional(),
});

type Snapshot = z.infer<typeof SnapshotSchema>;

/** One entry of `session.checkpoints()`. */
export interface CheckpointInfo {
  readonly step: number;
  /** When the step was committed (ISO-8601). */
  readonly at: string;
  /** What happened: `user_input`, `agent_response:billing`, `stop`, `cancel`, `start`, ... */
  readonly event: string;
}

/** Encodes a committed step as a sealed format 3 record (see `compactStep`, `stepRecordBody`). */
export function encodeStep(sessionId: string, step: CommittedStep): CheckpointRecord {
  const entry = compactStep(step);
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
  fingerprint: string,
  workflow: WorkflowDescriptor,
  stopReason?: string,
): CheckpointRecord {
  const record: Snapshot = {
    v: RECORD_VERSION,
    session: sessionId,
    step: state.step,
    at: new Date().toISOString(),
    event,
    fp: fingerprint,
    workflow,
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

/** Says how two workflow descriptors differ, field by field. */
function describeDifference(stored: WorkflowDescriptor, current: WorkflowDescriptor): string {
  const keys = [...new Set([...Object.keys(stored), ...Object.keys(current)])];
  const differing = keys.filter((k) => JSON.stringify(stored[k]) !== JSON.stringify(current[k]));
  return differing
    .map(
      (k) =>
        `${k}: stored ${JSON.stringify(stored[k])}, this workflow ${JSON.stringify(current[k])}`,
    )
    .join('; ');
}

/** What a log must match: the workflow's identity, and its check of a rebuilt state. */
export interface ExpectedWorkflow {
  readonly fingerprint: string;
  readonly descriptor: WorkflowDescriptor;
  /** The workflow's one state check (`StateValidator.stored`), also used by `loadState()`. */
  readonly check: (state: unknown) => StateCheck<SessionState>;
  /** The conversation state's check (API.md §18), to refuse a record whose patch breaks it. */
  readonly stateProblem?: ((data: unknown) => StateProblem) | undefined;
}

/** The step log of a session, read back into its state. */
export interface LoadedLog {
  readonly state: SessionState;
  readonly descriptor: WorkflowDescriptor;
}

/**
 * Rebuilds a session's state from its records: a snapshot, then each step read back as the typed
 * step it records and applied by `applyStep`, the reducer that made it. Throws `CheckpointError`
 * naming the step for anything unreadable, `ConfigError` when another workflow wrote the session.
 */
export function replayLog(
  sessionId: string,
  records: readonly CheckpointRecord[],
  expected: ExpectedWorkflow,
  base?: SessionState,
): SessionState {
  let state: unknown = base;
  /** The state the steps since the last snapshot made, and its thread's length. */
  let replayed: { state: SessionState; length: number } | undefined;
  let lastStep = base?.step;
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
      if (entry.fp !== expected.fingerprint) {
        if (JSON.stringify(entry.workflow) === JSON.stringify(expected.descriptor)) {
          throw new CheckpointError(sessionId, record.step, 'its workflow fingerprint is damaged');
        }
        throw new ConfigError(
          `Session "${sessionId}" was written by a different workflow ` +
            `(${describeDifference(entry.workflow, expected.descriptor)}). ` +
            'Resume it with the workflow that wrote it, or start a new session.',
          { path: 'workflow' },
        );
      }
      replayed = undefined;
      state = entry.state;
    } else {
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
    }
    lastStep = record.step;
  }
  if (replayed !== undefined) state = replayed.state;
  if (state === undefined) throw new CheckpointError(sessionId, 0, 'the log is empty');
  if (base !== undefined && state === base) return base;
  const checked = expected.check(state);
  if (!checked.ok && checked.path.startsWith('state')) {
    // A valid log whose conversation state this workflow's schema refuses (API.md §18).
    throw new ConfigError(
      `Session "${sessionId}" cannot be resumed: ${checked.problem}. Resume it with a workflow ` +
        "whose state schema accepts it, or update the stored state's field.",
      { path: checked.path },
    );
  }
  if (!checked.ok) {
    throw new CheckpointError(
      sessionId,
      lastStep ?? 0,
      `the state it leads to is wrong: ${checked.problem}`,
    );
  }
  if (checked.state.step !== lastStep) {
    throw new CheckpointError(
      sessionId,
      lastStep ?? 0,
      `the state says step ${checked.state.step}`,
    );
  }
  return checked.state;
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
