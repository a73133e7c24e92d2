import type { TaskResult } from '../engine/runnable.js';
import type { Reading, StepView } from '../engine/log/step-messages.js';
import type { PendingRequest } from '../engine/state/session-state.js';
import { totalUsage } from '../engine/run/task-messages.js';
import type { AgentMessage } from '../messages/message.js';
import { compareCursors, type Cursor } from './event-cursor.js';
import type { FeedEvent, LiveRun } from './live-run.js';
import type { RunHub } from './run-hub.js';
import { outcomeKey } from '../workers/dispatcher.js';

/** How a worker's outcome of a run that failed begins (its error message follows). */
const FAILED = 'failed:';
/** After every event of a step. */
const WHOLE_STEP = Number.MAX_SAFE_INTEGER;

/**
 * The one event source of every stream: the events after `cursor` — committed ones replayed from
 * the step log, then the live run followed (in this process from its own events, chunks included;
 * in another one from the store, step by step) — until the next pause or stop. Without a cursor
 * it starts at the current run's start. `undefined` when nothing runs and nothing follows the
 * cursor (the routes answer 204).
 */
export async function openEvents(
  hub: RunHub,
  id: string,
  cursor: Cursor | undefined,
  signal: AbortSignal,
): Promise<AsyncIterable<FeedEvent> | undefined> {
  const live = hub.live(id);
  const reading: Reading = { length: 0, status: 'idle', pending: null };
  const views = await hub.views(id, reading);
  // Opening a stream on an idle session is frequent (clients reconnect): a job a worker holds is
  // looked for (the costlier look on pg-boss) only when the log shows a run going on.
  const held = midRun(hub, views);
  let from = cursor;
  if (from === undefined) {
    if (live !== undefined) from = { step: live.base.step, n: WHOLE_STEP };
    else if (await hub.goingOn(id, held)) from = runStart(hub, views);
    else return undefined;
  }
  const replay = replayed(hub, id, views, from);
  if (replay.ended) return listed(replay.events);
  if (replay.events.length === 0 && live === undefined && !(await hub.goingOn(id, held))) {
    return undefined;
  }
  const last = replay.events.at(-1)?.id ?? from;
  const lastStep = views.at(-1)?.step ?? 0;
  return follow(hub, id, live, replay.events, last, { views, reading, lastStep }, signal);
}

async function* follow(
  hub: RunHub,
  id: string,
  seen: LiveRun | undefined,
  replay: readonly FeedEvent[],
  after: Cursor,
  log: { views: StepView[]; reading: Reading; lastStep: number },
  signal: AbortSignal,
): AsyncGenerator<FeedEvent> {
  yield* replay;
  let last = after;
  // The run seen when the stream opened (its events stay readable once it has ended), or one
  // that started here since.
  const live = seen ?? hub.live(id);
  if (live === undefined && hub.store === undefined) {
    // Without a store every run is in this process: what it committed is in the record.
    yield* replayed(hub, id, await hub.views(id), last).events;
    return;
  }
  if (live !== undefined) {
    for (let i = 0; ;) {
      await live.more(i, signal);
      if (signal.aborted) return;
      const next = live.events[i];
      if (next === undefined) {
        if (live.done) return;
        continue;
      }
      i++;
      if (!isNew(next, last)) continue;
      last = next.id;
      yield next;
      if (next.kind === 'result' || next.kind === 'error') return;
    }
  }
  // Another process runs it: follow its steps in the store.
  let lastStep = log.lastStep;
  for (let idle = false; !signal.aborted;) {
    const fresh = await hub.viewsAfter(id, lastStep, log.reading);
    log.views.push(...fresh);
    if (fresh.length > 0) lastStep = fresh.at(-1)?.step ?? lastStep;
    const step = replayed(hub, id, log.views, last);
    for (const event of step.events) {
      last = event.id;
      yield event;
    }
    if (step.ended) return;
    if (idle) {
      // Nothing runs the session and nothing will (no lease held, no job of it queued): the run
      // ended without a result, and a worker that failed it left the error.
      const failed = await failure(hub, log.views);
      if (failed !== undefined) yield failed;
      return;
    }
    // A job a worker has taken counts even before the worker holds the lease.
    if (fresh.length === 0 && !(await hub.goingOn(id, true))) idle = true;
    else await hub.changed(id, signal);
  }
}

/**
 * The error a worker left for the input of the session's last run when it failed it (API.md §16:
 * the step log does not keep it), as the event after the run's last committed step.
 */
async function failure(hub: RunHub, views: readonly StepView[]): Promise<FeedEvent | undefined> {
  const last = views.at(-1);
  const input = inputOf(hub, views, views.length);
  if (hub.store === undefined || !hub.dispatched || last === undefined || input === undefined) {
    return undefined;
  }
  const outcome = await hub.store.leaseHolder(outcomeKey(input.id));
  if (outcome?.startsWith(FAILED) !== true) return undefined;
  const id = { step: last.step, n: last.messages.length + 1 };
  return { id, kind: 'error', message: outcome.slice(FAILED.length) };
}

/** The input of the run that `views[end - 1]` belongs to (ends, or goes on with): its first message. */
function inputOf(hub: RunHub, views: readonly StepView[], end: number): AgentMessage | undefined {
  const before = views.slice(0, end);
  const run = before.slice(
    before.findLastIndex((view, i) => i < end - 1 && endsRun(hub, view)) + 1,
  );
  return run.find((view) => view.messages.length > 0)?.messages[0];
}

async function* listed(events: readonly FeedEvent[]): AsyncGenerator<FeedEvent> {
  yield* events;
}

/** True when `event` comes after `last` (a chunk's position is before its step's messages). */
function isNew(event: FeedEvent, last: Cursor): boolean {
  return compareCursors(event.id, last) > 0;
}

/** True when the log's last step is inside a run: the run's input is committed, its end is not. */
function midRun(hub: RunHub, views: readonly StepView[]): boolean {
  const last = views.at(-1);
  return (
    last !== undefined && !endsRun(hub, last) && inputOf(hub, views, views.length) !== undefined
  );
}

/** The cursor before the run that is going on: after the last step that ended a run. */
function runStart(hub: RunHub, views: readonly StepView[]): Cursor {
  const ended = views.findLast((view) => endsRun(hub, view));
  return ended === undefined ? { step: 0, n: 0 } : { step: ended.step, n: WHOLE_STEP };
}

/**
 * True when `view` ended a run. With a dispatcher, a `cancelled` step is a run a stopped worker
 * handed on (after its turn, or cut short): another worker goes on with it (API.md §16).
 */
function endsRun(hub: RunHub, view: StepView): boolean {
  return view.status !== 'idle' && !(view.status === 'cancelled' && hub.dispatched);
}

/** The committed events after `from`, up to the first result after it. */
function replayed(
  hub: RunHub,
  id: string,
  views: readonly StepView[],
  from: Cursor,
): { events: FeedEvent[]; ended: boolean } {
  const events: FeedEvent[] = [];
  let runFirst = 0;
  for (const [i, view] of views.entries()) {
    if (view.step >= from.step) {
      const patch = view.statePatch;
      const changed = { step: view.step, n: 0 };
      if (patch !== undefined && patch.length > 0 && compareCursors(changed, from) > 0) {
        events.push({ id: changed, kind: 'state', patch });
      }
      view.messages.forEach((message, j) => {
        const at = { step: view.step, n: j + 1 };
        if (compareCursors(at, from) > 0) events.push({ id: at, kind: 'message', message });
      });
    }
    const status = view.status;
    if (status === 'idle' || !endsRun(hub, view)) continue;
    const at = { step: view.step, n: view.messages.length + 1 };
    if (compareCursors(at, from) > 0) {
      const result = resultOf(id, views.slice(runFirst, i + 1), view.pendingRequest, status);
      events.push({ id: at, kind: 'result', result });
      return { events, ended: true };
    }
    runFirst = i + 1;
  }
  return { events, ended: false };
}

/**
 * The result of a run read back from its steps, the last of which ended it with `status` and
 * `pendingRequest`.
 */
export function resultOf(
  sessionId: string,
  steps: readonly StepView[],
  pendingRequest: PendingRequest | null,
  status: TaskResult['status'],
): TaskResult {
  const messages: AgentMessage[] = steps.flatMap((s) => s.messages);
  const recorded = steps.at(-1)?.stopReason;
  return {
    type: 'TaskResult',
    messages,
    stopReason: status === 'terminated' ? (recorded ?? stopReasonOf(messages)) : null,
    status,
    ...(status === 'awaiting_input' && pendingRequest !== null ? { pendingRequest } : {}),
    sessionId,
    usage: totalUsage(messages),
  };
}

/** The stop reason of a run whose log predates recorded reasons, as far as its messages tell it. */
function stopReasonOf(messages: readonly AgentMessage[]): string | null {
  const last = messages.at(-1);
  if (last?.type === 'StopMessage') return last.content;
  if (last?.type === 'GuardrailTrippedEvent') return `Guardrail "${last.source}" tripped`;
  return null;
}

/** Every event of `live` from its start (the answer of the request that started it). */
export async function* liveFeed(live: LiveRun, signal: AbortSignal): AsyncGenerator<FeedEvent> {
  for (let i = 0; ;) {
    await live.more(i, signal);
    if (signal.aborted) return;
    const next = live.events[i];
    if (next === undefined) {
      if (live.done) return;
      continue;
    }
    i++;
    yield next;
    if (next.kind === 'result' || next.kind === 'error') return;
  }
}
