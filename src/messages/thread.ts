import type { AgentMessage } from './message.js';
import { emptyIndex, extendIndex, type GrowingIndex, type ThreadIndex } from './thread-index.js';

/** What reading messages needs: a `Thread` and an array of messages are both one. */
export interface MessageList {
  readonly length: number;
  /** The message at `index` (from the end when negative), as `Array.prototype.at`. */
  at(index: number): AgentMessage | undefined;
}

/**
 * The array that threads made one from another share, never given out. Only the longest of them
 * appends to it, in place; an append from any other copies its own prefix.
 */
class Backing {
  readonly messages: AgentMessage[];
  /** The facts of the array's first `index.length` messages, for every thread sharing it. */
  index: GrowingIndex | undefined = undefined;

  constructor(messages: AgentMessage[]) {
    this.messages = messages;
  }
}

/**
 * A session's thread as a value: the messages so far, in order, never changed. `append` makes the
 * next thread in O(new messages), sharing the messages of this one; nobody can change a thread,
 * neither through the thread nor through the arrays it gives out (`messages` is frozen).
 *
 * A thread and the threads made from it share one array: the longest appends to it in place (the
 * others read their own prefix of it, which never changes), and an append that would overwrite a
 * longer thread's messages copies its own prefix instead. That array is never given out: a view
 * is a frozen copy, made once per thread when first read (tried: giving out the array itself,
 * frozen, made the next append copy it, and a step previewed to an agent copy twice).
 */
export class Thread implements MessageList, Iterable<AgentMessage> {
  readonly #backing: Backing;
  readonly length: number;
  /** The frozen array of this thread's messages, made on first read. */
  #view: readonly AgentMessage[] | undefined = undefined;
  /** This thread's own index, when the shared one already knows messages past its end. */
  #index: GrowingIndex | undefined = undefined;

  private constructor(backing: Backing, length: number) {
    this.#backing = backing;
    this.length = length;
  }

  /** The thread of `messages`: the thread whose view they are, or a copy of them. */
  static of(messages: readonly AgentMessage[]): Thread {
    return carriedThread(messages) ?? new Thread(new Backing(messages.slice()), messages.length);
  }

  /**
   * This thread with `messages` appended. Messages the shared array already holds at that place
   * (appended to this thread before, e.g. to show an agent what a step will add) are taken as they
   * are; the rest are pushed onto it when nothing past this thread's end is in it, otherwise the
   * new thread gets an array of its own.
   */
  append(messages: readonly AgentMessage[]): Thread {
    if (messages.length === 0) return this;
    const backing = this.#backing;
    const held = backing.messages;
    const start = this.length;
    let same = 0;
    const shared = Math.min(messages.length, held.length - start);
    while (same < shared && held[start + same] === messages[same]) same++;
    if (same === messages.length) return new Thread(backing, start + same);
    if (start + same === held.length) {
      for (let i = same; i < messages.length; i++) {
        const m = messages[i];
        if (m !== undefined) held.push(m);
      }
      return new Thread(backing, held.length);
    }
    const copy = held.slice(0, start);
    for (const m of messages) copy.push(m);
    return new Thread(new Backing(copy), copy.length);
  }

  /** The messages from `start` on, as a thread of their own (an array of its own). */
  since(start: number): Thread {
    if (start <= 0) return this;
    const messages = this.slice(start);
    return new Thread(new Backing(messages), messages.length);
  }

  at(index: number): AgentMessage | undefined {
    const i = index < 0 ? index + this.length : index;
    return i >= 0 && i < this.length ? this.#backing.messages[i] : undefined;
  }

  /** A new array of the messages from `start` on, the caller's to change. */
  slice(start = 0): AgentMessage[] {
    return this.#backing.messages.slice(start, this.length);
  }

  [Symbol.iterator](): Iterator<AgentMessage> {
    return this.slice()[Symbol.iterator]();
  }

  /**
   * The messages as a frozen array of their own, made once per thread on first read (so whoever
   * holds it holds a value). `Thread.of` of the array is this thread again.
   */
  get messages(): readonly AgentMessage[] {
    if (this.#view === undefined) {
      const view = this.slice();
      new Carrier(view, this);
      this.#view = Object.freeze(view);
    }
    return this.#view;
  }

  /** The facts of this thread's messages (kept with the thread, extended by new messages only). */
  index(): ThreadIndex {
    if (this.length === 0) return emptyIndex();
    const backing = this.#backing;
    // In use again: no longer one of the released (see `releaseIndex`).
    if (released.size > 0) released.delete(backing);
    let index = backing.index;
    if (index === undefined) {
      index = emptyIndex();
      backing.index = index;
    } else if (index.length > this.length) {
      index = this.#index ??= emptyIndex();
    }
    if (index.length < this.length) extendIndex(index, backing.messages, this.length);
    return index;
  }

  /**
   * Lets go of the index when a session pauses: the threads released last keep theirs (a session
   * run turn after turn finds it again), any older one is dropped, so that however many sessions
   * are paused, few hold an index; the next `index()` builds it again in one pass.
   */
  releaseIndex(): void {
    this.#index = undefined;
    const backing = this.#backing;
    if (backing.index === undefined) return;
    released.delete(backing);
    released.add(backing);
    if (released.size > MAX_RELEASED) {
      for (const oldest of released) {
        oldest.index = undefined;
        released.delete(oldest);
        break;
      }
    }
  }
}

/** The arrays of the threads released last that still keep their index, oldest first. */
const released = new Set<Backing>();
const MAX_RELEASED = 64;

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

/**
 * The thread an object carries: a view the thread gave out, or a state or agent context whose
 * property (`thread`, `conversation`) reads as the thread's view. A context's property may be
 * assigned another array, which it then reads as, carrying no thread any more.
 */
class Carrier extends OnObject {
  /** The thread, or the array a context's property was assigned instead. */
  #carried: Thread | readonly AgentMessage[];

  constructor(target: object, thread: Thread) {
    super(target);
    this.#carried = thread;
  }

  static threadOf(target: object): Thread | undefined {
    if (!(#carried in target)) return undefined;
    const carried = target.#carried;
    return carried instanceof Thread ? carried : undefined;
  }

  static read(target: object): readonly AgentMessage[] | undefined {
    if (!(#carried in target)) return undefined;
    const carried = target.#carried;
    return carried instanceof Thread ? carried.messages : carried;
  }

  static replace(target: object, messages: readonly AgentMessage[]): void {
    if (#carried in target) target.#carried = messages;
  }
}

/** The thread `target` carries (see `carryThread`), if any. */
export function carriedThread(target: object): Thread | undefined {
  return Carrier.threadOf(target);
}

function readCarried(this: object): readonly AgentMessage[] | undefined {
  return Carrier.read(this);
}

function replaceCarried(this: object, messages: readonly AgentMessage[]): void {
  Carrier.replace(this, messages);
}

// One descriptor per kind of carrier, so that every state (every context) has one hidden class.
const READ_ONLY: PropertyDescriptor = Object.freeze({
  get: readCarried,
  enumerable: true,
  configurable: false,
});
const ASSIGNABLE: PropertyDescriptor = Object.freeze({
  get: readCarried,
  set: replaceCarried,
  enumerable: true,
  configurable: true,
});

/**
 * Gives `target` (not yet frozen, without the property) `thread`: its property `key` reads as
 * the thread's frozen view, made on first read. `'thread'` (a session state) cannot be assigned;
 * `'conversation'` (an agent's context) can, as a plain property could.
 */
export function carryThread<K extends 'thread' | 'conversation'>(
  target: object,
  key: K,
  thread: Thread,
): asserts target is Record<K, readonly AgentMessage[]> {
  new Carrier(target, thread);
  Object.defineProperty(target, key, key === 'thread' ? READ_ONLY : ASSIGNABLE);
}
