import type { StatePatchOp } from '../../agents/conversation-state.js';
import type { CheckpointRecord } from '../../checkpoint/checkpoint-store.js';
import { CheckpointError } from '../../errors.js';
import type { AgentMessage } from '../../messages/message.js';
import { decode } from './session-log.js';
import type { PendingRequest, SessionState, SessionStatus } from '../state/session-state.js';

/**
 * One committed step as a stream shows it: the messages it appended to the thread (in order) and
 * where the session stood after it. A step whose `status` is not `idle` ends a run (a pause, a
 * stop or a cancel).
 */
export interface StepView {
  readonly step: number;
  readonly messages: readonly AgentMessage[];
  readonly status: SessionStatus;
  readonly pendingRequest: PendingRequest | null;
  /** The step's change of the conversation state, when it made one. */
  readonly statePatch?: readonly StatePatchOp[];
  /**
   * Why the run stopped, on a step that stopped it; `undefined` on the steps of logs written
   * before steps recorded it (and on snapshots).
   */
  readonly stopReason?: string;
}

/** Where the log stands between two records (pass one on to read a log further). */
export interface Reading {
  length: number;
  status: SessionStatus;
  pending: PendingRequest | null;
}

/** The view of a step from the state it made (a run in this process tells it this way). */
export function stepViewOf(
  step: number,
  appended: readonly AgentMessage[],
  state: Pick<SessionState, 'status' | 'pendingRequest'>,
  statePatch?: readonly StatePatchOp[],
  stopReason?: string,
): StepView {
  const view = {
    step,
    messages: appended,
    status: state.status,
    pendingRequest: state.pendingRequest,
    ...(stopReason === undefined ? {} : { stopReason }),
  };
  return statePatch === undefined ? view : { ...view, statePatch };
}

/**
 * The steps of a session's log (records in step order, read from its start) as `StepView`s:
 * exactly the messages each step appended, as `replayLog` would apply them. A snapshot in the
 * middle (a reset, a loaded state) appends what its thread holds beyond the thread before it.
 * @throws CheckpointError naming a record that cannot be read.
 */
export function stepViews(
  sessionId: string,
  records: readonly CheckpointRecord[],
  reading: Reading = { length: 0, status: 'idle', pending: null },
): StepView[] {
  const views: StepView[] = [];
  for (const record of records) {
    const entry = decode(sessionId, record);
    let messages: readonly AgentMessage[];
    let statePatch: readonly StatePatchOp[] | undefined;
    let stopReason: string | undefined;
    if ('state' in entry) {
      const state = entry.state as SessionState;
      const thread = state.thread;
      messages = thread.length > reading.length ? thread.slice(reading.length) : [];
      reading.length = thread.length;
      reading.status = state.status;
      reading.pending = state.pendingRequest;
      stopReason = entry.stopReason;
    } else {
      const step = entry.typed(reading.length);
      if (typeof step === 'string') throw new CheckpointError(sessionId, record.step, step);
      messages = step.append ?? [];
      statePatch = step.statePatch;
      stopReason = step.stopReason;
      reading.length += messages.length;
      if (step.status !== undefined) reading.status = step.status;
      if (step.pendingRequest !== undefined) reading.pending = step.pendingRequest;
    }
    views.push({
      step: record.step,
      messages,
      status: reading.status,
      pendingRequest: reading.pending,
      ...(statePatch === undefined ? {} : { statePatch }),
      ...(stopReason === undefined ? {} : { stopReason }),
    });
  }
  return views;
}
