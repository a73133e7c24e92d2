import type { AgentMessage } from '../../messages/message.js';
import { recordAppend } from '../../messages/thread-index.js';

/**
 * How the states of a session hold its thread without copying it at every step.
 *
 * A session's states form a line, each step's state one step further. They share one array of
 * messages that only grows: a step that appends pushes onto it (a copy per step made a turn cost
 * more the longer the thread was). Each state's `thread` is an accessor: while the state is the
 * line's last (its tip) it gives the shared array itself, and once later steps have grown that
 * array, a copy of the state's own prefix, made on first read and kept. So a state reads as the
 * value it was, however long it is held.
 *
 * An array given out by `thread` is a value too: whoever holds it may keep it, so it never grows
 * again — the next step that appends copies it into a new line. The engine's own reads that do
 * not keep the array beyond the step use `liveThread`, which does not give the array away.
 */
class ThreadLine {
  readonly messages: AgentMessage[];
  /** The line's last state: the only one whose thread is all of `messages`. */
  tip: object | undefined = undefined;
  /** Set once `messages` was given out: it may not grow any more. */
  shared: boolean;

  constructor(messages: AgentMessage[], shared: boolean) {
    this.messages = messages;
    this.shared = shared;
  }
}

/**
 * A base class whose constructor returns the object it is given: a subclass constructed on an
 * object adds its private fields to that object, unseen by `JSON.stringify`, spreads, `toEqual`
 * and schemas, and copied by none of them.
 */
class OnObject {
  constructor(target: object) {
    return target;
  }
}

/** A state's place on its line: how many of the line's messages are its thread. */
class LinePlace extends OnObject {
  readonly #line: ThreadLine;
  readonly #length: number;
  /** The state's own thread, copied once the line grew past it. */
  #copy: readonly AgentMessage[] | undefined = undefined;

  private constructor(state: object, line: ThreadLine) {
    super(state);
    this.#line = line;
    this.#length = line.messages.length;
  }

  /** Puts `state` at the end of `line` (its tip). */
  static place(state: object, line: ThreadLine): void {
    new LinePlace(state, line);
    line.tip = state;
  }

  /** The line `state` is the tip of, if it is one's. */
  static lineEndingAt(state: object): ThreadLine | undefined {
    if (!(#line in state)) return undefined;
    const line = (state as LinePlace).#line;
    return line.tip === state ? line : undefined;
  }

  /** The thread of a state placed on a line; `undefined` for any other object. */
  static threadOf(state: object, live: boolean): readonly AgentMessage[] | undefined {
    if (!(#line in state)) return undefined;
    const place = state as LinePlace;
    const line = place.#line;
    if (line.messages.length === place.#length) {
      if (!live) line.shared = true;
      return line.messages;
    }
    place.#copy ??= line.messages.slice(0, place.#length);
    return place.#copy;
  }
}

function threadGetter(this: object): readonly AgentMessage[] {
  return LinePlace.threadOf(this, false) as readonly AgentMessage[];
}

/** `thread` as an accessor (one for every state, so that they all share one hidden class). */
const THREAD_PROPERTY: PropertyDescriptor = Object.freeze({
  get: threadGetter,
  enumerable: true,
  configurable: false,
});

/**
 * Gives `next` (a state being made from `previous`, without a `thread` property yet) the thread of
 * `previous` with `append` appended: pushed onto `previous`'s line when `previous` is its tip and
 * its array was never given out, otherwise a new line. Returns the new thread's length.
 */
export function extendThread(
  previous: { readonly thread: readonly AgentMessage[] },
  next: object,
  append: readonly AgentMessage[],
): number {
  let line = LinePlace.lineEndingAt(previous);
  if (append.length > 0) {
    if (line !== undefined && !line.shared) {
      const messages = line.messages;
      for (let i = 0; i < append.length; i++) messages.push(append[i] as AgentMessage);
    } else {
      const before = liveThread(previous);
      line = new ThreadLine(before.concat(append), false);
      recordAppend(before, line.messages);
    }
  } else if (line === undefined) {
    // A state that is not a tip (or not on a line): its array may be anyone's, so it never grows.
    line = new ThreadLine(liveThread(previous) as AgentMessage[], true);
  }
  LinePlace.place(next, line);
  Object.defineProperty(next, 'thread', THREAD_PROPERTY);
  return line.messages.length;
}

/**
 * `state.thread` for a reader that does not keep the array beyond the current step and does not
 * give it to code that might (an agent of this library, the engine's own checks): the line's
 * array is not marked as given out, so the next step may still push onto it.
 */
export function liveThread(state: {
  readonly thread: readonly AgentMessage[];
}): readonly AgentMessage[] {
  return LinePlace.threadOf(state, true) ?? state.thread;
}
