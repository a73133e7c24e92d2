import type { CheckpointRecord } from '../checkpoint/checkpoint-store.js';
import type { AgentMessage } from '../messages/message.js';
import { decode } from './log/session-log.js';
import type { PendingRequest, SessionState, SessionStatus } from './state/session-state.js';

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
): StepView {
  return { step, messages: appended, status: state.status, pendingRequest: state.pendingRequest };
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
    if ('state' in entry) {
      const state = entry.state as SessionState;
      const thread = state.thread;
      messages = thread.length > reading.length ? thread.slice(reading.length) : [];
      reading.length = thread.length;
      reading.status = state.status;
      reading.pending = state.pendingRequest;
    } else if ('s' in entry) {
      messages = (entry.a ?? []) as AgentMessage[];
      reading.length += messages.length;
      const fields = entry.f ?? {};
      if ('s' in fields) reading.status = fields.s as SessionStatus;
      if ('q' in fields) reading.pending = fields.q as PendingRequest | null;
    } else {
      const appended: AgentMessage[] = [];
      for (const [op, path, value] of entry.p as [string, (string | number)[], unknown][]) {
        const [key] = path;
        if (op === 'a' && key === 'thread') appended.push(value as AgentMessage);
        else if (key === 'status') reading.status = value as SessionStatus;
        else if (key === 'pendingRequest') reading.pending = value as PendingRequest | null;
      }
      messages = appended;
      reading.length += appended.length;
    }
    views.push({
      step: record.step,
      messages,
      status: reading.status,
      pendingRequest: reading.pending,
    });
  }
  return views;
}
