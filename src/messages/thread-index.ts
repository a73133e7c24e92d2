import type { AgentMessage, FunctionExecutionResult } from './message.js';

/**
 * Facts about a thread that only grow as it grows — the first result of every call, every call
 * id, the calls that handed off — kept per thread and extended by the new messages only. Threads
 * are append-only and their messages immutable, so a thread is recognised by its first message
 * and checked, message by message (by identity: a pointer comparison each), to continue exactly
 * the messages indexed — a thread edited or rearranged by its caller gets a fresh index.
 */
export interface ThreadIndex {
  /** How many messages of the thread are indexed. */
  readonly length: number;
  readonly results: ReadonlyMap<string, FunctionExecutionResult>;
  readonly callIds: ReadonlySet<string>;
  /** Calls whose result is the text of the `HandoffMessage` that followed them. */
  readonly handoffCalls: ReadonlySet<string>;
  /** Per `HandoffMessage` (by thread index, ascending): the calls it marked as handoff calls. */
  readonly handoffLinks: readonly { readonly handoff: number; readonly ids: readonly string[] }[];
}

interface MutableIndex extends ThreadIndex {
  length: number;
  /** The thread array last indexed, to recognise its successors without comparing messages. */
  array: readonly AgentMessage[] | undefined;
  /** The messages indexed, to check that a thread really continues them. */
  readonly messages: AgentMessage[];
  results: Map<string, FunctionExecutionResult>;
  callIds: Set<string>;
  handoffCalls: Set<string>;
  handoffLinks: { handoff: number; ids: string[] }[];
  /** Per source: its latest tool results not yet followed by a chat message, and where. */
  pending: Map<string, readonly FunctionExecutionResult[]>;
  memo?: Map<string, unknown>;
}

/**
 * The indexes of the threads used most recently, by first message. Bounded, so that sessions that
 * are paused hold no index: a resumed session rebuilds its index once, in one pass.
 */
const indexes = new Map<AgentMessage, MutableIndex>();
const MAX_INDEXES = 64;

/** Per-thread memo of derived values (e.g. rendered views), dropped with the thread's index. */
export function memoOf(index: ThreadIndex): Map<string, unknown> {
  const mutable = index as MutableIndex;
  mutable.memo ??= new Map();
  return mutable.memo;
}

function fresh(): MutableIndex {
  return {
    length: 0,
    array: undefined,
    messages: [],
    results: new Map(),
    callIds: new Set(),
    handoffCalls: new Set(),
    handoffLinks: [],
    pending: new Map(),
  };
}

function add(index: MutableIndex, m: AgentMessage, at: number): void {
  switch (m.type) {
    case 'ToolCallRequestEvent':
      for (const c of m.content) index.callIds.add(c.id);
      break;
    case 'ToolCallExecutionEvent':
      for (const r of m.content) if (!index.results.has(r.callId)) index.results.set(r.callId, r);
      index.pending.set(m.source, m.content);
      break;
    case 'HandoffMessage': {
      const pending = index.pending.get(m.source);
      if (pending !== undefined) {
        const ids = pending.filter((r) => r.content === m.content).map((r) => r.callId);
        for (const id of ids) index.handoffCalls.add(id);
        if (ids.length > 0) index.handoffLinks.push({ handoff: at, ids });
      }
      index.pending.delete(m.source);
      break;
    }
    case 'TextMessage':
    case 'StructuredMessage':
      index.pending.delete(m.source);
      break;
    default:
      break;
  }
}

/** The index of `thread`, extended to its end. */
export function indexThread(thread: readonly AgentMessage[]): ThreadIndex {
  const first = thread[0];
  if (first === undefined) return fresh();
  let index = indexes.get(first);
  if (
    index === undefined ||
    !(descendsFrom(thread, index.array) || continues(thread, index.messages))
  ) {
    index = fresh();
  }
  // Most recently used last: re-insert, and drop the oldest beyond the bound.
  indexes.delete(first);
  indexes.set(first, index);
  if (indexes.size > MAX_INDEXES) {
    const oldest = indexes.keys().next().value;
    if (oldest !== undefined) indexes.delete(oldest);
  }
  for (let i = index.length; i < thread.length; i++) {
    const message = thread[i] as AgentMessage;
    add(index, message, i);
    index.messages.push(message);
  }
  index.length = thread.length;
  index.array = thread;
  return index;
}

/**
 * Which thread array each appended one was made from (the engine records it when a step appends).
 * Following it back to an array already indexed proves a thread continues that array's messages
 * in a few lookups, instead of comparing every message.
 */
const madeFrom = new WeakMap<readonly AgentMessage[], readonly AgentMessage[]>();

/** Records that `next` is `previous` with messages appended. */
export function recordAppend(
  previous: readonly AgentMessage[],
  next: readonly AgentMessage[],
): void {
  if (previous !== next) madeFrom.set(next, previous);
}

function descendsFrom(
  thread: readonly AgentMessage[],
  ancestor: readonly AgentMessage[] | undefined,
): boolean {
  if (ancestor === undefined) return false;
  let current: readonly AgentMessage[] | undefined = thread;
  for (let hops = 0; current !== undefined && hops < 64; hops++) {
    if (current === ancestor) return true;
    current = madeFrom.get(current);
  }
  return false;
}

/** True when `thread` starts with exactly the messages of `prefix` (the same objects). */
export function continues(
  thread: readonly AgentMessage[],
  prefix: readonly AgentMessage[],
): boolean {
  if (prefix.length > thread.length) return false;
  for (let i = prefix.length - 1; i >= 0; i--) if (thread[i] !== prefix[i]) return false;
  return true;
}
