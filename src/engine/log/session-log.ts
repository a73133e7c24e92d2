import { crc32 } from 'node:zlib';

import { z } from 'zod';

import type { CheckpointRecord } from '../../checkpoint/checkpoint-store.js';
import { CheckpointError, ConfigError } from '../../errors.js';
import { firstIssue } from '../../zod-issues.js';
import {
  type CompactStep,
  CompactStepSchema,
  compactStep,
  eventOf,
  patchesOf,
  readStepRecord,
  STEP_VERSION,
  stepRecordBody,
} from './compact-step.js';
import type { CommittedStep, SessionState } from '../state/session-state.js';
import type { StateCheck } from '../state/state-validator.js';
import { StepReplay } from '../state/step-replay.js';

/** The version of the snapshot format; a snapshot of another version is refused with advice. */
export const RECORD_VERSION = 1;

/** What identifies a workflow's shape: participants, topology and routing. */
export type WorkflowDescriptor = Readonly<Record<string, unknown>>;

/** A patch as stored: `[op, path, value?]` with op `a`dd, `r`eplace or `d`elete (remove). */
const StoredPatchSchema = z.union([
  z.tuple([
    z.enum(['a', 'r']),
    z.array(z.union([z.string(), z.number().int().nonnegative()])),
    z.unknown(),
  ]),
  z.tuple([z.literal('d'), z.array(z.union([z.string(), z.number().int().nonnegative()]))]),
]);

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
});

/** A record of one step: what changed. Its log began with a snapshot that names the workflow. */
const StepSchema = z.object({
  step: z.number().int().positive(),
  at: z.string(),
  event: z.string(),
  p: z.array(StoredPatchSchema),
});

type Snapshot = z.infer<typeof SnapshotSchema>;
type StepEntry = z.infer<typeof StepSchema>;

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
export function decode(
  sessionId: string,
  record: CheckpointRecord,
): Snapshot | StepEntry | CompactStep {
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
  if (!record.snapshot && Array.isArray(raw)) return decodeStepRecord(sessionId, record, raw);
  // Version 1 step records have no `v`; a snapshot's `v` is the snapshot format's.
  const compact =
    !record.snapshot &&
    typeof raw === 'object' &&
    raw !== null &&
    'v' in raw &&
    (raw as { v?: unknown }).v !== RECORD_VERSION;
  if (compact && (raw as { v?: unknown }).v !== 2) throw unknownStepVersion(sessionId, record, raw);
  const schema = record.snapshot ? SnapshotSchema : compact ? CompactStepSchema : StepSchema;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const kind = record.snapshot ? 'snapshot' : 'step record';
    throw new CheckpointError(
      sessionId,
      record.step,
      `the ${kind} is malformed at ${firstIssue(parsed.error).text}`,
    );
  }
  const entry = parsed.data;
  if ('s' in entry) return checkedStep(sessionId, record, entry);
  if ('v' in entry && entry.v !== RECORD_VERSION) {
    throw new CheckpointError(
      sessionId,
      record.step,
      `the record has format version ${entry.v}, this version of Baton reads version ${RECORD_VERSION}; ` +
        'resume it with the Baton version that wrote it',
    );
  }
  if (entry.step !== record.step || ('session' in entry && entry.session !== sessionId)) {
    const of = 'session' in entry ? ` of session "${entry.session}"` : '';
    throw new CheckpointError(
      sessionId,
      record.step,
      `the record says it is step ${entry.step}${of}`,
    );
  }
  return entry;
}

/** A format 3 step record (a JSON list) read into its content. */
function decodeStepRecord(
  sessionId: string,
  record: CheckpointRecord,
  raw: readonly unknown[],
): CompactStep {
  if (raw[0] !== STEP_VERSION) throw unknownStepVersion(sessionId, record, { v: raw[0] });
  const entry = readStepRecord(raw);
  if (typeof entry === 'string') {
    throw new CheckpointError(sessionId, record.step, `the step record is malformed at ${entry}`);
  }
  return checkedStep(sessionId, record, entry);
}

function checkedStep(sessionId: string, record: CheckpointRecord, entry: CompactStep): CompactStep {
  if (entry.s !== record.step) {
    throw new CheckpointError(sessionId, record.step, `the record says it is step ${entry.s}`);
  }
  return entry;
}

function unknownStepVersion(
  sessionId: string,
  record: CheckpointRecord,
  raw: unknown,
): CheckpointError {
  return new CheckpointError(
    sessionId,
    record.step,
    `the step record has format version ${JSON.stringify((raw as { v?: unknown }).v)}, this ` +
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
}

/** The step log of a session, read back into its state. */
export interface LoadedLog {
  readonly state: SessionState;
  readonly descriptor: WorkflowDescriptor;
}

/**
 * Rebuilds a session's state from its records (a snapshot, then patches). Throws `CheckpointError`
 * naming the step for anything unreadable, `ConfigError` when another workflow wrote the session.
 */
export function replayLog(
  sessionId: string,
  records: readonly CheckpointRecord[],
  expected: ExpectedWorkflow,
  base?: SessionState,
): SessionState {
  let state: unknown = base;
  let replay: StepReplay | undefined;
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
      replay = undefined;
      state = entry.state;
    } else {
      if (state === undefined) {
        throw new CheckpointError(sessionId, record.step, 'the log does not start with a snapshot');
      }
      replay ??= StepReplay.from(state);
      if (replay === undefined) {
        throw new CheckpointError(sessionId, record.step, 'the snapshot before it is malformed');
      }
      const patches = 's' in entry ? patchesOf(entry, replay.threadLength) : entry.p;
      for (const stored of patches) {
        const problem = replay.apply(stored);
        if (problem !== null) throw new CheckpointError(sessionId, record.step, problem);
      }
      replay.endStep(record.step);
    }
    lastStep = record.step;
  }
  if (replay !== undefined) state = replay.state();
  if (state === undefined) throw new CheckpointError(sessionId, 0, 'the log is empty');
  if (base !== undefined && state === base) return base;
  const checked = expected.check(state);
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

/** The step log as `session.checkpoints()` shows it. */
export function listCheckpoints(
  sessionId: string,
  records: readonly CheckpointRecord[],
): CheckpointInfo[] {
  return records.map((record) => {
    const entry = decode(sessionId, record);
    if ('s' in entry) {
      return { step: entry.s, at: new Date(entry.t).toISOString(), event: eventOf(entry) };
    }
    return { step: entry.step, at: entry.at, event: entry.event };
  });
}
