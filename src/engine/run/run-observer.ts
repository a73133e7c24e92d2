import type { AgentMessage } from '../../messages/message.js';
import type { RunOptions, TaskMessage } from '../runnable.js';
import type { SessionState } from '../state/session-state.js';
import type { StepBody } from '../state/step.js';
import { threadOf } from '../state/state-thread.js';

/**
 * Internal, not part of API.md: a `RunOptions` key whose observer hears a run as it happens,
 * synchronously and in order: every message put on the run's stream (streaming chunks included),
 * and every step it commits with the messages that step appends to the thread. `serve()` builds its
 * event cursors from it: a committed step's messages are exactly what its step log record replays.
 */
// `Symbol.for`: a workflow built by another copy of Baton (a module the CLI loads) hears it too.
export const OBSERVE_RUN = Symbol.for('baton.observeRun');

/** What `OBSERVE_RUN` hears. A throwing observer is ignored: it cannot break the run it watches. */
export interface RunObserver {
  /** A message the run streams, as it streams it. */
  message?(message: AgentMessage): void;
  /** A step was committed: the state it made, and what it changed (what the log keeps). */
  step?(state: SessionState, change: StepBody): void;
}

/**
 * Internal, not part of API.md: a `RunOptions` key whose signal, once aborted, hands the run on
 * (a worker's `close()`, API.md §16): the turn it is making — or its first one, when it has made
 * none yet — finishes and is committed, and it starts no further turn but ends `cancelled`, its
 * session left for another process to resume from that step.
 */
export const HAND_OVER = Symbol.for('baton.handOver');

/**
 * Internal, not part of API.md: a `RunOptions` key that makes a run's input an input given once
 * (a worker's job, API.md §16): when the task's first message is already in the thread once the
 * run holds the lease, an earlier attempt took it, and the run rejects with `InputTaken` before it
 * commits anything, rather than take the same input twice.
 */
export const INPUT_ONCE = Symbol.for('baton.inputOnce');

/** Why a run with `INPUT_ONCE` did not start: its input is in the thread already. */
export class InputTaken extends Error {
  override readonly name = 'InputTaken';
  constructor(sessionId: string, messageId: string) {
    super(
      `Session "${sessionId}" already took the input ${messageId}; its run goes on from the log.`,
    );
  }
}

/** The keys of a worker's runs (API.md §16): a signal that hands them on, an input given once. */
export interface WorkerRun {
  readonly [HAND_OVER]?: AbortSignal | undefined;
  readonly [INPUT_ONCE]?: boolean | undefined;
}

/** `RunOptions` with an observer, and a worker's keys. */
export type ObservedRun = RunOptions & WorkerRun & { readonly [OBSERVE_RUN]?: RunObserver };

/** `input`, unless `options` give it once (`INPUT_ONCE`) and the thread of `state` has it. */
export function freshInput<T extends readonly TaskMessage[]>(
  input: T,
  options: RunOptions,
  sessionId: string,
  state: SessionState,
): T {
  const first = input[0];
  if (first === undefined || !(INPUT_ONCE in options) || options[INPUT_ONCE] !== true) return input;
  const thread = threadOf(state);
  for (let i = thread.length - 1; i >= 0; i--) {
    if (thread.at(i)?.id === first.id) throw new InputTaken(sessionId, first.id);
  }
  return input;
}

/** The hand-over signal `options` carry, if any (see `HAND_OVER`). */
export function handOverOf(options: RunOptions | undefined): AbortSignal | undefined {
  if (options === undefined || !(HAND_OVER in options)) return undefined;
  const signal = options[HAND_OVER];
  return signal instanceof AbortSignal ? signal : undefined;
}

/** The observer `options` carry, if any. */
export function observerOf(options: RunOptions | undefined): RunObserver | undefined {
  return (options as ObservedRun | undefined)?.[OBSERVE_RUN];
}

/** Calls `hear` on the observer, ignoring what it throws. */
export function tell(observer: RunObserver | undefined, hear: (o: RunObserver) => void): void {
  if (observer === undefined) return;
  try {
    hear(observer);
  } catch {
    // An observer cannot break the run it watches.
  }
}

/** `sink`, also telling the observer of `options` (if it hears messages) of every message. */
export function observedSink<S extends (message: AgentMessage) => void>(
  options: RunOptions,
  sink: S | undefined,
): S | ((message: AgentMessage) => void) | undefined {
  const observer = observerOf(options);
  if (observer?.message === undefined) return sink;
  return (message) => {
    tell(observer, (o) => o.message?.(message));
    sink?.(message);
  };
}
