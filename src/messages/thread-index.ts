import type { AgentMessage, FunctionExecutionResult } from './message.js';

/**
 * Facts about a thread that only grow as it grows — the first result of every call, every call
 * id, the calls that handed off — kept per thread and extended by the new messages only. Threads
 * are append-only and their messages immutable, so a thread is recognised by its first message
 * and checked by the identity of the last message indexed.
 */
export interface ThreadIndex {
  /** How many messages of the thread are indexed. */
  readonly length: number;
  readonly results: ReadonlyMap<string, FunctionExecutionResult>;
  readonly callIds: ReadonlySet<string>;
  /** Calls whose result is the text of the `HandoffMessage` that followed them. */
  readonly handoffCalls: ReadonlySet<string>;
  /** Per handoff found: the thread index of its `HandoffMessage` and of the results it matched. */
  readonly handoffLinks: readonly { readonly handoff: number; readonly results: number }[];
}

interface MutableIndex extends ThreadIndex {
  length: number;
  last: AgentMessage | undefined;
  results: Map<string, FunctionExecutionResult>;
  callIds: Set<string>;
  handoffCalls: Set<string>;
  handoffLinks: { handoff: number; results: number }[];
  /** Per source: its latest tool results not yet followed by a chat message, and where. */
  pending: Map<string, { at: number; results: readonly FunctionExecutionResult[] }>;
  memo?: Map<string, unknown>;
}

/**
 * The indexes of the threads used most recently, by first message. Bounded, so that sessions that
 * are paused hold no index: a resumed session rebuilds its index once, in one pass.
 */
const indexes = new Map<AgentMessage, MutableIndex>();
const MAX_INDEXES = 256;

/** Per-thread memo of derived values (e.g. rendered views), dropped with the thread's index. */
export function memoOf(index: ThreadIndex): Map<string, unknown> {
  const mutable = index as MutableIndex;
  mutable.memo ??= new Map();
  return mutable.memo;
}

function fresh(): MutableIndex {
  return {
    length: 0,
    last: undefined,
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
      index.pending.set(m.source, { at, results: m.content });
      break;
    case 'HandoffMessage': {
      const pending = index.pending.get(m.source);
      if (pending !== undefined) {
        for (const r of pending.results)
          if (r.content === m.content) index.handoffCalls.add(r.callId);
        index.handoffLinks.push({ handoff: at, results: pending.at });
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
    index.length > thread.length ||
    (index.length > 0 && thread[index.length - 1] !== index.last)
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
  for (let i = index.length; i < thread.length; i++) add(index, thread[i] as AgentMessage, i);
  index.length = thread.length;
  index.last = thread[thread.length - 1];
  return index;
}
