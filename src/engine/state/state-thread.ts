import type { AgentMessage } from '../../messages/message.js';
import { carriedThread, carryThread, Thread } from '../../messages/thread.js';

/**
 * The thread of a session state, as a `Thread` value. A state a step made carries its thread:
 * `state.thread` reads as the thread's frozen view, made on first read (so a step costs no copy of
 * the thread, and what any reader gets never changes). A state made elsewhere (a fresh one, one a
 * store or `loadState` parsed, a spread of a state) has a plain array, read as a thread of its own.
 */
export function threadOf(state: { readonly thread: readonly AgentMessage[] }): Thread {
  return carriedThread(state) ?? Thread.of(state.thread);
}

/** Gives `next` (a state being made, not yet frozen, without a `thread` property) `thread`. */
export function giveThread(
  next: object,
  thread: Thread,
): asserts next is { readonly thread: readonly AgentMessage[] } {
  carryThread(next, 'thread', thread);
}
