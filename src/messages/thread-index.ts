import type { AgentMessage, FunctionExecutionResult } from './message.js';

/**
 * Facts about a thread that only grow as it grows — the first result of every call, every call
 * id, the calls that handed off. A `Thread` keeps them (`Thread.index()`) and extends them by its
 * new messages only; they belong to the thread value, never to a cache of arrays.
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
  /** The thread index of the latest `HandoffMessage`, `-1` when there is none. */
  readonly lastHandoff: number;
  /** Values derived from the thread's messages (e.g. rendered views), dropped with the index. */
  readonly memo: Map<string, unknown>;
}

/** The index as its thread extends it. */
export interface GrowingIndex extends ThreadIndex {
  length: number;
  lastHandoff: number;
  readonly results: Map<string, FunctionExecutionResult>;
  readonly callIds: Set<string>;
  readonly handoffCalls: Set<string>;
  readonly handoffLinks: { handoff: number; ids: string[] }[];
  /** Per source: its latest tool results not yet followed by a chat message. */
  readonly pending: Map<string, readonly FunctionExecutionResult[]>;
}

/** The index of no messages. */
export function emptyIndex(): GrowingIndex {
  return {
    length: 0,
    results: new Map(),
    callIds: new Set(),
    handoffCalls: new Set(),
    handoffLinks: [],
    lastHandoff: -1,
    pending: new Map(),
    memo: new Map(),
  };
}

/** Extends `index` (of the first `index.length` of `messages`) to the first `to` messages. */
export function extendIndex(
  index: GrowingIndex,
  messages: readonly AgentMessage[],
  to: number,
): void {
  for (let i = index.length; i < to; i++) {
    const m = messages[i];
    if (m !== undefined) add(index, m, i);
  }
  index.length = to;
}

function add(index: GrowingIndex, m: AgentMessage, at: number): void {
  switch (m.type) {
    case 'ToolCallRequestEvent':
      for (const call of m.content) index.callIds.add(call.id);
      break;
    case 'ToolCallExecutionEvent':
      for (const r of m.content) if (!index.results.has(r.callId)) index.results.set(r.callId, r);
      index.pending.set(m.source, m.content);
      break;
    case 'HandoffMessage': {
      index.lastHandoff = at;
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
