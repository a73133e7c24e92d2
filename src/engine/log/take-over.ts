import { CheckpointError, ConfigError } from '../../errors.js';
import { isRecord } from '../../unknown-value.js';
import type { StatePatchOp, StateProblem } from '../../agents/conversation-state.js';
import { type SessionState, SessionStateSchema } from '../state/session-state.js';
import { threadOf } from '../state/state-thread.js';
import type { StateCheck } from '../state/state-validator.js';
import type { ReplayedLog, WorkflowDescriptor, Writer } from './session-log.js';
import { stateRefusal, type StateTrail } from './state-refusal.js';

/** What a log must match: the workflow's identity, and its check of a rebuilt state. */
export interface ExpectedWorkflow {
  readonly fingerprint: string;
  readonly descriptor: WorkflowDescriptor;
  /** The conversation state's version (`StateOption.version`). @default 1 */
  readonly stateVersion?: number;
  /** Makes an older version's conversation state fit (`StateOption.migrate`). */
  readonly migrate?: ((old: unknown, from: number) => unknown) | undefined;
  /** Per participant: the tools it may call (undefined: it does not say). */
  readonly tools?: ReadonlyMap<string, ReadonlySet<string> | undefined>;
  /** The workflow's one state check (`StateValidator.stored`), also used by `loadState()`. */
  readonly check: (state: unknown) => StateCheck<SessionState>;
  /** The conversation state's check, to refuse a record whose patch breaks it. */
  readonly stateProblem?: ((data: unknown) => StateProblem) | undefined;
}

/**
 * Checks the state a log leads to. Written by this workflow, a state it refuses is damage
 * (`CheckpointError`, naming the step whose patch broke the conversation state). Written
 * by another workflow (another fingerprint), this one takes the session over when the change is
 * compatible: the state, migrated from an older state version, passes its checks, and nothing the
 * session waits on is gone; otherwise it is a `ConfigError` naming the session and the reason.
 */
export function settleLog(
  sessionId: string,
  state: unknown,
  trail: StateTrail,
  writer: Writer,
  expected: ExpectedWorkflow,
): ReplayedLog {
  const { lastStep } = trail;
  if (writer.fingerprint === expected.fingerprint) {
    const checked = expected.check(state);
    // Every update this workflow committed passed its state schema: a state it refuses is damage.
    if (!checked.ok && checked.path.startsWith('state'))
      throw stateRefusal(sessionId, checked, trail, expected);
    return { state: stepChecked(sessionId, lastStep, checked), writer };
  }
  // Another workflow wrote it: what its shape cannot be is damage, whoever reads it.
  const shape = SessionStateSchema.safeParse(state);
  if (!shape.success)
    return { state: stepChecked(sessionId, lastStep, expected.check(state)), writer };
  const taken = takeOver(shape.data, writer, expected);
  if ('reason' in taken) {
    throw new ConfigError(
      `Session "${sessionId}" cannot be taken over by this workflow: ${taken.reason}. ` +
        (taken.migrated
          ? 'Make migrate return a state the schema accepts; the stored session is untouched.'
          : 'Run it with the workflow that wrote it until it ends, or delete it.'),
      { path: taken.path },
    );
  }
  return { ...taken, writer };
}

/** The state a check accepted, at the step the log ended with. */
function stepChecked(
  sessionId: string,
  lastStep: number,
  checked: StateCheck<SessionState>,
): SessionState {
  if (!checked.ok) {
    throw new CheckpointError(
      sessionId,
      lastStep,
      `the state it leads to is wrong: ${checked.problem}`,
    );
  }
  if (checked.state.step !== lastStep) {
    throw new CheckpointError(sessionId, lastStep, `the state says step ${checked.state.step}`);
  }
  return checked.state;
}

type TakeOver =
  | { state: SessionState; migration?: readonly StatePatchOp[] }
  | { reason: string; path: string; migrated: boolean };

/** `state`, written by another workflow (`writer`), as this one would run it, or why it cannot. */
function takeOver(state: SessionState, writer: Writer, expected: ExpectedWorkflow): TakeOver {
  const version = expected.stateVersion ?? 1;
  if (writer.version > version) {
    return {
      reason: `its conversation state has version ${writer.version}, newer than this workflow's ${version}`,
      path: 'state.version',
      migrated: false,
    };
  }
  let candidate = state;
  let migration: StatePatchOp[] | undefined;
  const migrate = expected.migrate;
  if (writer.version < version && migrate !== undefined) {
    let value: unknown;
    try {
      value = migrate(structuredClone(state.data ?? {}), writer.version);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      return {
        reason: `state.migrate(old, ${writer.version}) threw: ${text}`,
        path: 'state.migrate',
        migrated: true,
      };
    }
    if (!isRecord(value)) {
      return {
        reason: `state.migrate(old, ${writer.version}) returned ${JSON.stringify(value) ?? String(value)}, which is no JSON object`,
        path: 'state',
        migrated: true,
      };
    }
    const at = threadOf(state).length;
    migration = [{ op: 'replace', path: '', value }];
    candidate = {
      ...state,
      data: value,
      stateUpdates: [...(state.stateUpdates ?? []), { at, ops: migration }],
    };
  }
  const checked = expected.check(candidate);
  if (!checked.ok) {
    const problem =
      migration === undefined
        ? checked.problem
        : `state.migrate(old, ${writer.version}) returned a state it refuses: ${checked.problem}`;
    return { reason: problem, path: checked.path, migrated: migration !== undefined };
  }
  const request = checked.state.pendingRequest;
  if (request !== null && expected.tools !== undefined) {
    if (!expected.tools.has(request.agent)) {
      return {
        reason: `its pending request names agent "${request.agent}", which this workflow does not have`,
        path: 'pendingRequest.agent',
        migrated: false,
      };
    }
    const tools = expected.tools.get(request.agent);
    const gone = tools === undefined ? undefined : request.calls?.find((c) => !tools.has(c.name));
    if (gone !== undefined) {
      return {
        reason: `its pending request names tool "${gone.name}" of agent "${request.agent}", which this workflow does not have`,
        path: 'pendingRequest.calls',
        migrated: false,
      };
    }
  }
  return migration === undefined ? { state: checked.state } : { state: checked.state, migration };
}
