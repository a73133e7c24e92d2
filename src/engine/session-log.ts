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

const PatchSchema = z.object({
  op: z.enum(['add', 'replace', 'remove']),
  path: z.array(z.union([z.string(), z.number().int().nonnegative()])),
  value: z.unknown().optional(),
});

const EnvelopeSchema = z.object({
  v: z.number(),
  session: z.string(),
  step: z.number().int().positive(),
  at: z.string(),
  event: z.string(),
  fp: z.string(),
  workflow: z.record(z.string(), z.unknown()).optional(),
  state: z.unknown().optional(),
  patches: z.array(PatchSchema).optional(),
});

type Envelope = z.infer<typeof EnvelopeSchema>;

/** One entry of `session.checkpoints()`. */
export interface CheckpointInfo {
  readonly step: number;
  /** When the step was committed (ISO-8601). */
  readonly at: string;
  /** What happened: `user_input`, `agent_response:billing`, `stop`, `cancel`, `start`, ... */
  readonly event: string;
}

/** Encodes a committed step as the patches from the previous state. */
export function encodeStep(
  sessionId: string,
  step: CommittedStep,
  fingerprint: string,
): CheckpointRecord {
  const record: Envelope = {
    v: RECORD_VERSION,
    session: sessionId,
    step: step.state.step,
    at: new Date().toISOString(),
    event: step.event,
    fp: fingerprint,
    patches: step.patches as Patch[] as Envelope['patches'],
  };
  return { step: record.step, snapshot: false, data: JSON.stringify(record) };
}

/** Encodes the whole state (a session's first record, a fork, a reset or a loaded state). */
export function encodeSnapshot(
  sessionId: string,
  state: SessionState,
  event: string,
  fingerprint: string,
  workflow: WorkflowDescriptor,
): CheckpointRecord {
  const record: Envelope = {
    v: RECORD_VERSION,
    session: sessionId,
    step: state.step,
    at: new Date().toISOString(),
    event,
    fp: fingerprint,
    workflow,
    state,
  };
  return { step: record.step, snapshot: true, data: JSON.stringify(record) };
}

function decode(sessionId: string, record: CheckpointRecord): Envelope {
  let raw: unknown;
  try {
    raw = JSON.parse(record.data);
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
  const parsed = EnvelopeSchema.safeParse(raw);
  if (!parsed.success) {
    throw new CheckpointError(
      sessionId,
      record.step,
      `the record is malformed at ${firstIssue(parsed.error).text}`,
    );
  }
  const envelope = parsed.data;
  if (envelope.v !== RECORD_VERSION) {
    throw new CheckpointError(
      sessionId,
      record.step,
      `the record has format version ${envelope.v}, this version of Baton reads version ${RECORD_VERSION}; ` +
        'resume it with the Baton version that wrote it',
    );
  }
  if (envelope.step !== record.step || envelope.session !== sessionId) {
    throw new CheckpointError(
      sessionId,
      record.step,
      `the record says it is step ${envelope.step} of session "${envelope.session}"`,
    );
  }
  if (
    record.snapshot !== (envelope.state !== undefined) ||
    (envelope.state === undefined) === (envelope.patches === undefined)
  ) {
    throw new CheckpointError(
      sessionId,
      record.step,
      'the record holds neither exactly a snapshot nor patches',
    );
  }
  return envelope;
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
  expected: { fingerprint: string; descriptor: WorkflowDescriptor },
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
    const envelope = decode(sessionId, record);
    if (envelope.fp !== expected.fingerprint) {
      const stored = envelope.workflow;
      throw new ConfigError(
        `Session "${sessionId}" was written by a different workflow` +
          (stored === undefined ? '' : ` (${describeDifference(stored, expected.descriptor)})`) +
          '. Resume it with the workflow that wrote it, or start a new session.',
        { path: 'workflow' },
      );
    }
    if (lastStep !== undefined && record.step !== lastStep + 1 && !record.snapshot) {
      throw new CheckpointError(
        sessionId,
        record.step,
        `it follows step ${lastStep}; a step is missing`,
      );
    }
    if (envelope.state !== undefined) {
      patches = [];
      state = envelope.state as SessionState;
    } else {
      if (state === undefined)
        throw new CheckpointError(sessionId, record.step, 'the log does not start with a snapshot');
      patches.push(...(envelope.patches as Patch[]));
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
  return parsed.data;
}

/** The step log as `session.checkpoints()` shows it. */
export function listCheckpoints(
  sessionId: string,
  records: readonly CheckpointRecord[],
): CheckpointInfo[] {
  return records.map((record) => {
    const envelope = decode(sessionId, record);
    return { step: envelope.step, at: envelope.at, event: envelope.event };
  });
}
