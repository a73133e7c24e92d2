import type { AgentMessage, FunctionExecutionResult } from './message.js';

/**
 * Facts about a thread that only grow as it grows — the first result of every call, every call
 * id, the calls that handed off — kept per line of threads and extended by the new messages only.
 * Threads are append-only and their messages immutable: each step makes a new array, the previous
 * one with messages appended (`recordAppend`), and such arrays form a lineage whose index they
 * share. A thread no step made (one a caller built) starts a lineage of its own.
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
  results: Map<string, FunctionExecutionResult>;
  callIds: Set<string>;
  handoffCalls: Set<string>;
  handoffLinks: { handoff: number; ids: string[] }[];
  /** Per source: its latest tool results not yet followed by a chat message, and where. */
  pending: Map<string, readonly FunctionExecutionResult[]>;
}

/**
 * Thread arrays that agree message for message wherever both have one: each is a prefix of the
 * longest, `tip`. Only the tip is held: an older thread of the lineage is not kept alive by it.
 */
interface Lineage {
  tip: readonly AgentMessage[];
  /** The index, while the lineage is in use (a session's run, a caller's own thread). */
  index?: MutableIndex | undefined;
}

/** The lineage of each thread array a step made or an index was asked for. */
const lineages = new WeakMap<readonly AgentMessage[], Lineage>();

/**
 * The indexes released most recently (see `releaseIndex`), by the thread they were released with.
 * Bounded, so that sessions that are paused hold no index: a resumed session rebuilds its index
 * once, in one pass.
 */
const released = new Map<readonly AgentMessage[], MutableIndex>();
const MAX_RELEASED = 64;

/** The lineage of `thread`; a new one (with the index released with it, if any) when it has none. */
function lineageOf(thread: readonly AgentMessage[]): Lineage {
  let lineage = lineages.get(thread);
  if (lineage === undefined) {
    lineage = { tip: thread, index: released.get(thread) };
    released.delete(thread);
    lineages.set(thread, lineage);
  }
  return lineage;
}

function fresh(): MutableIndex {
  return {
    length: 0,
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
      for (const r of m.content) {
        if (!index.results.has(r.callId)) index.results.set(r.callId, r);
      }
      index.pending.set(m.source, m.content);
      break;
    case 'HandoffMessage': {
      const pending = index.pending.get(m.source);
      if (pending !== undefined) {
        let ids: string[] | undefined;
        for (const r of pending) {
          if (r.content !== m.content) continue;
          index.handoffCalls.add(r.callId);
          (ids ??= []).push(r.callId);
        }
        if (ids !== undefined) index.handoffLinks.push({ handoff: at, ids });
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
  if (thread.length === 0) return fresh();
  const lineage = lineageOf(thread);
  let index = lineage.index;
  // An index of more messages than `thread` has (a longer thread of the lineage) knows too much.
  if (index === undefined || index.length > thread.length) index = fresh();
  lineage.index = index;
  for (let i = index.length; i < thread.length; i++) {
    const m = thread[i];
    if (m !== undefined) add(index, m, i);
  }
  index.length = thread.length;
  return index;
}

/**
 * Lets go of the index of `thread`'s lineage when a session pauses: it joins the few kept for the
 * sessions used last, so that however many sessions run at once, each keeps its index while it
 * runs, and a paused one holds none for long.
 */
export function releaseIndex(thread: readonly AgentMessage[]): void {
  const lineage = lineages.get(thread);
  const index = lineage?.index;
  if (lineage === undefined || index === undefined) return;
  // The thread forgets its lineage too: a paused session holds neither.
  lineage.index = undefined;
  lineages.delete(thread);
  released.delete(thread);
  released.set(thread, index);
  if (released.size > MAX_RELEASED) {
    const oldest = released.keys().next().value;
    if (oldest !== undefined) released.delete(oldest);
  }
}

/**
 * Records that `next` is `previous` with messages appended, so that `next` shares the index of
 * `previous`'s lineage. When the lineage already holds a longer thread that disagrees with `next`
 * (a fork), `next` starts a lineage of its own.
 */
export function recordAppend(
  previous: readonly AgentMessage[],
  next: readonly AgentMessage[],
): void {
  if (previous === next) return;
  const lineage = lineageOf(previous);
  const tip = lineage.tip;
  const shared = Math.min(tip.length, next.length);
  for (let i = previous.length; i < shared; i++) {
    if (tip[i] !== next[i]) {
      lineages.set(next, { tip: next });
      return;
    }
  }
  if (next.length > tip.length) lineage.tip = next;
  lineages.set(next, lineage);
}
