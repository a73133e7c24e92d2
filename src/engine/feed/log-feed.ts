import type { AgentMessage } from '../../messages/message.js';
import type { Reading, StepView } from '../log/step-messages.js';
import { compareCursors, type Cursor } from './feed-cursor.js';
import type { FeedHost } from './feed-host.js';
import type { LiveRun } from './live-run.js';
import type { RunEvent } from './run-event.js';
import { resultOf } from './run-result.js';

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
  host: FeedHost,
  id: string,
  cursor: Cursor | undefined,
  signal: AbortSignal,
): Promise<AsyncIterable<RunEvent> | undefined> {
  const live = host.live(id);
  const reading: Reading = { length: 0, status: 'idle', pending: null };
  const views = await host.views(id, reading);
  // Opening a stream on an idle session is frequent (clients reconnect): a job a worker holds is
  // looked for (the costlier look on pg-boss) only when the log shows a run going on.
  const held = midRun(host, views);
  let from = cursor;
  if (from === undefined) {
    if (live !== undefined) from = { step: live.base.step, n: WHOLE_STEP };
    else if (await host.goingOn(id, held)) from = runStart(host, views);
    else return undefined;
  }
  const replay = replayed(host, id, views, from);
  if (replay.ended) return listed(replay.events);
  if (replay.events.length === 0 && live === undefined && !(await host.goingOn(id, held))) {
    return undefined;
  }
  const last = replay.events.at(-1)?.id ?? from;
  const lastStep = views.at(-1)?.step ?? 0;
  return follow(host, id, live, replay.events, last, { views, reading, lastStep }, signal);
}

async function* follow(
  host: FeedHost,
  id: string,
  seen: LiveRun | undefined,
  replay: readonly RunEvent[],
  after: Cursor,
  log: { views: StepView[]; reading: Reading; lastStep: number },
  signal: AbortSignal,
): AsyncGenerator<RunEvent> {
  yield* replay;
  let last = after;
  // The run seen when the stream opened (its events stay readable once it has ended), or one
  // that started here since.
  const live = seen ?? host.live(id);
  if (live === undefined && host.store === undefined) {
    // Without a store every run is in this process: what it committed is in the record.
    yield* replayed(host, id, await host.views(id), last).events;
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
    // Woken by the next announced step (waiting from before the read, so none is missed).
    const woken = host.changed(id, signal);
    const making = lastStep + 1;
    const fresh = await host.viewsAfter(id, lastStep, log.reading);
    // The drafts of the step that was being made come before it (committed since, maybe).
    for (const draft of host.remoteDrafts(id, making)) {
      if (!isNew(draft, last)) continue;
      last = draft.id;
      yield draft;
    }
    log.views.push(...fresh);
    if (fresh.length > 0) lastStep = fresh.at(-1)?.step ?? lastStep;
    const step = replayed(host, id, log.views, last);
    for (const event of step.events) {
      last = event.id;
      yield event;
    }
    if (step.ended) return;
    // The drafts the process making the next step published on the queue engine's channel.
    for (const draft of host.remoteDrafts(id, lastStep + 1)) {
      if (!isNew(draft, last)) continue;
      last = draft.id;
      yield draft;
    }
    if (idle) {
      // Nothing runs the session and nothing will (no lease held, no job of it queued): the run
      // ended without a result, and a worker that failed it left the error.
      const failed = await failure(host, log.views);
      if (failed !== undefined) yield failed;
      return;
    }
    // A job a worker has taken counts even before the worker holds the lease.
    if (fresh.length === 0 && !(await host.goingOn(id, true))) idle = true;
    else await woken;
  }
}

/**
 * The error a worker left for the input of the session's last run when it failed it (the
 * step log does not keep it), as the event after the run's last committed step.
 */
async function failure(host: FeedHost, views: readonly StepView[]): Promise<RunEvent | undefined> {
  const last = views.at(-1);
  const input = inputOf(host, views, views.length);
  const failed = host.channel?.failure;
  if (failed === undefined || last === undefined || input === undefined) return undefined;
  const message = await failed.call(host.channel, input.id);
  if (message === undefined) return undefined;
  return { id: { step: last.step, n: last.messages.length + 1 }, kind: 'error', message };
}

/** The input of the run that `views[end - 1]` belongs to (ends, or goes on with): its first message. */
function inputOf(
  host: FeedHost,
  views: readonly StepView[],
  end: number,
): AgentMessage | undefined {
  const before = views.slice(0, end);
  const run = before.slice(
    before.findLastIndex((view, i) => i < end - 1 && endsRun(host, view)) + 1,
  );
  return run.find((view) => view.messages.length > 0)?.messages[0];
}

async function* listed(events: readonly RunEvent[]): AsyncGenerator<RunEvent> {
  yield* events;
}

/** True when `event` comes after `last` (a chunk's position is before its step's messages). */
function isNew(event: RunEvent, last: Cursor): boolean {
  return compareCursors(event.id, last) > 0;
}

/** True when the log's last step is inside a run: the run's input is committed, its end is not. */
function midRun(host: FeedHost, views: readonly StepView[]): boolean {
  const last = views.at(-1);
  return (
    last !== undefined && !endsRun(host, last) && inputOf(host, views, views.length) !== undefined
  );
}

/** The cursor before the run that is going on: after the last step that ended a run. */
function runStart(host: FeedHost, views: readonly StepView[]): Cursor {
  const ended = views.findLast((view) => endsRun(host, view));
  return ended === undefined ? { step: 0, n: 0 } : { step: ended.step, n: WHOLE_STEP };
}

/**
 * True when `view` ended a run. With a dispatcher, a `cancelled` step is a run a stopped worker
 * handed on (after its turn, or cut short): another worker goes on with it.
 */
function endsRun(host: FeedHost, view: StepView): boolean {
  return view.status !== 'idle' && !(view.status === 'cancelled' && host.queued);
}

/** The committed events after `from`, up to the first result after it. */
function replayed(
  host: FeedHost,
  id: string,
  views: readonly StepView[],
  from: Cursor,
): { events: RunEvent[]; ended: boolean } {
  const events: RunEvent[] = [];
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
    if (status === 'idle' || !endsRun(host, view)) continue;
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

/** Every event of `live` from its start (the answer of the request that started it). */
export async function* liveFeed(live: LiveRun, signal: AbortSignal): AsyncGenerator<RunEvent> {
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
