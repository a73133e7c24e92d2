import type { AgentEvent, FunctionCall, FunctionExecutionResult } from '../messages/message.js';
import { toolInDoubtEvent } from '../messages/message-factories.js';
import type { AgentContext } from './chat-agent.js';
import type { Handoff } from './handoff.js';
import { effectOf, type OpenBatch, type PauseEvent } from './open-batch.js';
import type { Tool } from './tool.js';

/** What decides whether a batch of calls needs its start committed. */
export interface Batch {
  readonly fixed: ReadonlyMap<string, FunctionExecutionResult> | undefined;
  /** Calls a decision approved: the decision was their start. */
  readonly approved: ReadonlySet<string>;
  readonly handoffs: ReadonlyMap<string, Handoff>;
  readonly tools: ReadonlyMap<string, Tool>;
}

/**
 * Commits the start of `calls` when one of them is a `"once"` or an `"idempotent"`
 * call about to run for the first time: the turn's events so far become one step before any of
 * them runs. For a `"once"` call it tells "never started" from "in doubt"; for an idempotent one
 * it keeps the call (and its `ctx.callId`) so that a run cut off while it ran runs that same call
 * again, instead of asking the model, which would mint a new id. Calls with a fixed result,
 * approved calls (their decision was the start) and handoffs (`"read"`) need none.
 */
export async function startBatch(
  ctx: AgentContext,
  calls: readonly FunctionCall[],
  batch: Batch,
  inner: readonly AgentEvent[],
): Promise<void> {
  if (ctx.startCalls === undefined) return;
  const needsStart = calls.some(
    (c) =>
      batch.fixed?.has(c.id) !== true &&
      !batch.approved.has(c.id) &&
      !batch.handoffs.has(c.name) &&
      effectOf(c, batch.tools) !== 'read',
  );
  if (!needsStart) return;
  await ctx.startCalls(inner);
  ctx.signal.throwIfAborted();
}

/**
 * The event an open batch pauses on: a new `ToolInDoubtEvent` for calls newly in doubt, else the
 * thread's event whose calls are not all decided; `undefined` when the turn can go on.
 */
export function pauseEventOf(agent: string, open: OpenBatch): PauseEvent | undefined {
  if (open.doubts.length > 0) return toolInDoubtEvent({ source: agent, content: open.doubts });
  return open.waiting;
}

/**
 * The calls of a paused open batch that run before it pauses again: those with a fixed result and
 * the approved ones; while calls are newly in doubt, only those this run's decisions started (a
 * read or idempotent call waits for the decisions on the calls in doubt).
 */
export function readyCalls(
  open: OpenBatch,
  started: ReadonlySet<string> | undefined,
): FunctionCall[] {
  return open.calls.filter(
    (c) =>
      !open.results.has(c.id) &&
      (open.fixed.has(c.id) ||
        (open.approved.has(c.id) && (open.doubts.length === 0 || started?.has(c.id) === true))),
  );
}
