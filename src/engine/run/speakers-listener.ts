import type { RunOptions } from '../runnable.js';

/**
 * Internal, not part of the public API: a `RunOptions` key whose function hears which participants start
 * a turn, all at once when several answer in one step. The devtools page lights them while they
 * work; the public stream only shows what they say.
 */
export const ON_SPEAKERS = Symbol('baton.onSpeakers');

/**
 * Hears the participants that start a turn now. `streamed` is how many messages the run had put on
 * its stream by then: a consumer that reads the stream behind the run applies the news once it has
 * read that many.
 */
export type SpeakersListener = (agents: readonly string[], streamed: number) => void;

/** `RunOptions` with a speakers listener. */
export type ObservedRunOptions = RunOptions & { readonly [ON_SPEAKERS]?: SpeakersListener };

/** Tells the run's listener (if any) that `agents` start a turn; a throwing listener is ignored. */
export function announceSpeakers(
  options: RunOptions,
  agents: readonly string[],
  streamed: number,
): void {
  const listener = (options as ObservedRunOptions)[ON_SPEAKERS];
  if (listener === undefined) return;
  try {
    listener(agents, streamed);
  } catch {
    // A listener is an observer: it cannot break the run it watches.
  }
}
