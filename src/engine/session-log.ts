import { crc32 } from 'node:zlib';

import { applyPatches, type Patch } from 'immer';
import { z } from 'zod';

import type { CheckpointRecord } from '../checkpoint/checkpoint-store.js';
import { CheckpointError, ConfigError } from '../errors.js';
import { firstIssue } from '../zod-issues.js';
import type { CommittedStep, SessionState } from './session-state.js';
import { SessionStateSchema } from './session-state.js';

/** The version of the record format; a record of another version is refused with advice. */
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

const OPS = { add: 'a', replace: 'r', remove: 'd' } as const;
const FROM_OP = { a: 'add', r: 'replace', d: 'remove' } as const;

function storePatch(patch: Patch): unknown[] {
  const op = OPS[patch.op];
  return op === 'd' ? [op, patch.path] : [op, patch.path, patch.value];
}

const STATE_KEYS: ReadonlySet<string> = new Set([
  'thread',
  'machineState',
  'resumeState',
  'status',
  'pendingRequest',
  'turn',
  'termination',
  'bookmarks',
  'lastSpeaker',
  'progress',
  'step',
]);
const UNSAFE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Why a stored patch cannot be one Baton wrote, or null. */
function patchProblem(path: readonly (string | number)[]): string | null {
  const [key, index] = path;
  if (typeof key !== 'string' || !STATE_KEYS.has(key))
    return `a patch changes an unknown field ${JSON.stringify(key)}`;
  if (key === 'thread' && (typeof index !== 'number' || path.length !== 2)) {
    return 'a patch changes the thread other than by appending a message';
  }
  if (path.some((p) => typeof p === 'string' && UNSAFE_KEYS.has(p)))
    return 'a patch has an unsafe path';
  return null;
}

function loadPatch(stored: z.infer<typeof StoredPatchSchema>): Patch {
  const [op, path] = stored;
  return op === 'd' ? { op: FROM_OP[op], path } : { op: FROM_OP[op], path, value: stored[2] };
}

/** One entry of `session.checkpoints()`. */
export interface CheckpointInfo {
  readonly step: number;
  /** When the step was committed (ISO-8601). */
  readonly at: string;
  /** What happened: `user_input`, `agent_response:billing`, `stop`, `cancel`, `start`, ... */
  readonly event: string;
}

/**
 * Encodes a committed step as the patches from the previous state. The step number is the
 * record's own, so the `step` field's patch is left out; the workflow was checked when the log was
 * loaded, so only snapshots carry it.
 */
export function encodeStep(sessionId: string, step: CommittedStep): CheckpointRecord {
  const record = {
    step: step.state.step,
    at: new Date().toISOString(),
    event: step.event,
    p: step.patches
      .filter((patch) => !(patch.path.length === 1 && patch.path[0] === 'step'))
      .map(storePatch),
  };
  return {
    step: record.step,
    snapshot: false,
    data: seal(sessionId, record.step, JSON.stringify(record)),
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

function decode(sessionId: string, record: CheckpointRecord): Snapshot | StepEntry {
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
  const parsed = (record.snapshot ? SnapshotSchema : StepSchema).safeParse(raw);
  if (!parsed.success) {
    const kind = record.snapshot ? 'snapshot' : 'step record';
    throw new CheckpointError(
      sessionId,
      record.step,
      `the ${kind} is malformed at ${firstIssue(parsed.error).text}`,
    );
  }
  const entry = parsed.data;
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
  /** What is wrong with a state for this workflow, or null (states it cannot be in). */
  readonly validate?: (state: SessionState) => string | null;
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
  let state = base;
  let patches: Patch[] = [];
  let lastStep = base?.step;
  const flush = (step: number) => {
    if (patches.length === 0 || state === undefined) return;
    try {
      state = applyPatches(state, patches);
    } catch (error) {
      throw new CheckpointError(
        sessionId,
        step,
        'its patches do not apply to the steps before it',
        { cause: error },
      );
    }
    patches = [];
  };
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
      patches = [];
      state = entry.state as SessionState;
    } else {
      if (state === undefined) {
        throw new CheckpointError(sessionId, record.step, 'the log does not start with a snapshot');
      }
      for (const stored of entry.p) {
        const problem = patchProblem(stored[1]);
        if (problem !== null) throw new CheckpointError(sessionId, record.step, problem);
        patches.push(loadPatch(stored));
      }
      patches.push({ op: 'replace', path: ['step'], value: record.step });
    }
    lastStep = record.step;
  }
  flush(lastStep ?? 0);
  if (state === undefined) throw new CheckpointError(sessionId, 0, 'the log is empty');
  if (state === base) return state;
  const parsed = SessionStateSchema.safeParse(state);
  if (!parsed.success) {
    throw new CheckpointError(
      sessionId,
      lastStep ?? 0,
      `the state it leads to is invalid at ${firstIssue(parsed.error).text}`,
    );
  }
  if (parsed.data.step !== lastStep) {
    throw new CheckpointError(sessionId, lastStep ?? 0, `the state says step ${parsed.data.step}`);
  }
  const problem = expected.validate?.(parsed.data) ?? null;
  if (problem !== null) throw new CheckpointError(sessionId, lastStep ?? 0, problem);
  return parsed.data;
}

/** The step log as `session.checkpoints()` shows it. */
export function listCheckpoints(
  sessionId: string,
  records: readonly CheckpointRecord[],
): CheckpointInfo[] {
  return records.map((record) => {
    const entry = decode(sessionId, record);
    return { step: entry.step, at: entry.at, event: entry.event };
  });
}
