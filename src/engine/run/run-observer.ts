import type { RunOptions, TaskMessage } from '../runnable.js';
import type { SessionState } from '../state/session-state.js';
import { threadOf } from '../state/state-thread.js';
import { decidedBy } from './decider.js';

/**
 * Internal, not part of the public API: a `RunOptions` key whose signal, once aborted, hands the run on
 * (a worker's `close()`): the turn it is making — or its first one, when it has made
 * none yet — finishes and is committed, and it starts no further turn but ends `cancelled`, its
 * session left for another process to resume from that step.
 */
export const HAND_OVER = Symbol.for('baton.handOver');

/**
 * Internal, not part of the public API: a `RunOptions` key that makes a run's input an input given once
 * (a worker's job): when the task's first message is already in the thread once the
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

/** The keys of a worker's runs: a signal that hands them on, an input given once. */
export interface WorkerRun {
  readonly [HAND_OVER]?: AbortSignal | undefined;
  readonly [INPUT_ONCE]?: boolean | undefined;
}

/**
 * `input`, unless `options` give it once (`INPUT_ONCE`) and the thread of `state` has it; checked
 * and signed by the run's principal (see `decidedBy()`).
 */
export function freshInput(
  given: readonly TaskMessage[],
  options: RunOptions,
  sessionId: string,
  state: SessionState,
): readonly TaskMessage[] {
  const input = decidedBy(given, options.principal, state, sessionId);
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
