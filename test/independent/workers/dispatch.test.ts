// Independent suite for API.md §16: `serve(workflow, { dispatcher })` queues runs that workers
// (`startWorker`) make, on real PostgreSQL (pg-boss) and Redis (BullMQ). Written from API.md
// alone. Readings where the page is open:
// - the server machine's own agents are never called ("runs are queued, not run in the server");
// - a POST answers with the run's TaskResult, whose first message is the input it carried;
// - `busy: "interrupt"`: a run that goes on by itself (billing in autonomous mode) is stopped after
//   its current turn; the new input then runs (routed to the coordinator, which hands off);
// - "the order `handler.fetch` received them": ten `handler.fetch` calls made one after the other
//   in one tick, without awaiting;
// - the default queue `baton.<workflow name>`: a dispatcher given that queue name explicitly meets
//   one given none.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

import type { AgentMessage, TaskResult } from '../../../src/index.js';
import {
  answer,
  authenticate,
  Backend,
  closeAll,
  desk,
  Gate,
  type Kind,
  request,
  server,
  type Ticks,
  sseEvents,
  ticker,
  unique,
  until,
  worker,
} from './support.js';

// Queues, leases and retries take seconds on real servers: generous waits, no timed assertion.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

const backends: Backend[] = [];
afterEach(async () => {
  await closeAll();
});
afterAll(async () => {
  for (const b of backends) await b.drop();
});

/** HandoffBuilder's default autonomous-mode prompt (API.md §6). */
const AUTONOMOUS = 'User did not respond. Continue assisting autonomously.';

const textOf = (messages: readonly AgentMessage[], source: string) =>
  messages
    .filter((m) => m.type === 'TextMessage' && m.source === source)
    .map((m) => (m as { content: string }).content);

describe.each(['pg-boss', 'bullmq'] as const)('workers on %s (API.md §16)', (kind: Kind) => {
  const backend = () => {
    const b = new Backend(kind);
    backends.push(b);
    return b;
  };

  it('a run posted to the server is made by a worker; the server runs nothing', async () => {
    const b = backend();
    const name = `wk-${unique()}`;
    const front = desk({ store: b.store(), label: 'server', name });
    const handler = server(front.workflow, { authenticate, dispatcher: b.dispatcher() });
    const one = desk({ store: b.store(), label: 'w1', name });
    await worker(one.workflow, { dispatcher: b.dispatcher() });

    expect((await answer(handler.fetch(request('POST', '/sessions', { id: 's1' })))).status).toBe(
      201,
    );
    const posted = await answer(
      handler.fetch(request('POST', '/sessions/s1/runs', { input: 'hello' })),
    );
    expect(posted.status).toBe(200);
    const result = posted.json as TaskResult;
    expect(result.status).toBe('awaiting_input');
    expect(result.sessionId).toBe('s1');
    expect(result.messages.map((m) => `${m.type}:${m.source}`)).toEqual([
      'TextMessage:user',
      'ToolCallRequestEvent:triage',
      'ToolCallExecutionEvent:triage',
      'HandoffMessage:triage',
      'TextMessage:billing',
      'UserInputRequestedEvent:billing',
    ]);
    expect(textOf(result.messages, 'billing')).toEqual(['w1: hello']);
    expect(front.counts).toEqual({ triage: 0, billing: 0 });
    expect(one.counts).toEqual({ triage: 1, billing: 1 });
    // What the server answered is what the store holds.
    const thread = await front.workflow.session('s1').messages();
    expect(JSON.parse(JSON.stringify(thread))).toEqual(result.messages);
    const info = await answer(handler.fetch(request('GET', '/sessions/s1')));
    expect(info.json).toMatchObject({ status: 'awaiting_input' });
  });

  it('each POST answers with the TaskResult of the run that took its input, whichever worker made it', async () => {
    const b = backend();
    const name = `wk-${unique()}`;
    const front = desk({ store: b.store(), label: 'server', name });
    const handler = server(front.workflow, { authenticate, dispatcher: b.dispatcher() });
    const one = desk({ store: b.store(), label: 'w1', name });
    const two = desk({ store: b.store(), label: 'w2', name });
    await worker(one.workflow, { dispatcher: b.dispatcher() });
    await worker(two.workflow, { dispatcher: b.dispatcher(), concurrency: 2 });

    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    for (const id of ids) {
      expect((await answer(handler.fetch(request('POST', '/sessions', { id })))).status).toBe(201);
    }
    const posted = await Promise.all(
      ids.map((id) =>
        answer(handler.fetch(request('POST', `/sessions/${id}/runs`, { input: `hi ${id}` }))),
      ),
    );
    const labels: Record<string, number> = { w1: 0, w2: 0 };
    for (const [i, id] of ids.entries()) {
      expect(posted[i]!.status).toBe(200);
      const result = posted[i]!.json as TaskResult;
      expect(result.sessionId).toBe(id);
      expect(result.messages[0]).toMatchObject({
        type: 'TextMessage',
        source: 'user',
        content: `hi ${id}`,
      });
      const [text] = textOf(result.messages, 'billing');
      expect(text).toMatch(new RegExp(`^w[12]: hi ${id}$`));
      labels[text!.slice(0, 2)]!++;
      expect(textOf(await front.workflow.session(id).messages(), 'billing')).toEqual([text]);
    }
    expect(labels).toEqual({ w1: one.counts.billing, w2: two.counts.billing });
    expect(one.counts.billing + two.counts.billing).toBe(6);
    expect(front.counts).toEqual({ triage: 0, billing: 0 });
  });

  it('busy "enqueue" (the default): ten inputs of one session run one after another, in the order received', async () => {
    const b = backend();
    const name = `wk-${unique()}`;
    const front = desk({ store: b.store(), label: 'server', name });
    const handler = server(front.workflow, { authenticate, dispatcher: b.dispatcher() });
    const one = desk({ store: b.store(), label: 'w1', name });
    const two = desk({ store: b.store(), label: 'w2', name });
    await worker(one.workflow, { dispatcher: b.dispatcher() });
    await worker(two.workflow, { dispatcher: b.dispatcher() });
    expect((await answer(handler.fetch(request('POST', '/sessions', { id: 'ten' })))).status).toBe(
      201,
    );

    const inputs = Array.from({ length: 10 }, (_, i) => `m${i + 1}`);
    const pending = inputs.map((input) =>
      handler.fetch(request('POST', '/sessions/ten/runs', { input })),
    );
    const posted = await Promise.all(pending.map((p) => answer(p)));
    for (const [i, input] of inputs.entries()) {
      expect(posted[i]!.status).toBe(200);
      const result = posted[i]!.json as TaskResult;
      expect(result.status).toBe('awaiting_input');
      expect(result.messages[0]).toMatchObject({
        type: 'TextMessage',
        source: 'user',
        content: input,
      });
      expect(textOf(result.messages, 'billing')).toHaveLength(1);
      expect(textOf(result.messages, 'billing')[0]).toMatch(new RegExp(`^w[12]: ${input}$`));
    }
    const thread = await front.workflow.session('ten').messages();
    expect(textOf(thread, 'user')).toEqual(inputs);
    // One after another: each input is answered before the next one appears.
    const order = thread
      .filter((m) => m.type === 'TextMessage')
      .map((m) =>
        m.source === 'user'
          ? (m as { content: string }).content
          : `-> ${(m as { content: string }).content.slice(4)}`,
      );
    expect(order).toEqual(inputs.flatMap((m) => [m, `-> ${m}`]));
    expect(one.counts.billing + two.counts.billing).toBe(10);
    expect(one.counts.triage + two.counts.triage).toBe(10);
    expect(front.counts).toEqual({ triage: 0, billing: 0 });
  });

  it('busy "reject": input while the session runs answers 409 and commits nothing', async () => {
    const b = backend();
    const name = `wk-${unique()}`;
    const gate = new Gate();
    const front = desk({ store: b.store(), label: 'server', name });
    const handler = server(front.workflow, {
      authenticate,
      dispatcher: b.dispatcher(),
      busy: 'reject',
    });
    const one = desk({ store: b.store(), label: 'w1', name, gate: { agent: 'billing', gate } });
    await worker(one.workflow, { dispatcher: b.dispatcher() });
    expect((await answer(handler.fetch(request('POST', '/sessions', { id: 'rj' })))).status).toBe(
      201,
    );

    const first = answer(
      handler.fetch(request('POST', '/sessions/rj/runs', { input: 'slow one' })),
    );
    await gate.started;
    const second = await answer(
      handler.fetch(request('POST', '/sessions/rj/runs', { input: 'second' })),
    );
    expect(second.status).toBe(409);
    expect(second.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(second.json).toMatchObject({
      error: { code: expect.any(String), message: expect.any(String) },
    });
    gate.open();
    const done = await first;
    expect(done.status).toBe(200);
    expect(textOf((done.json as TaskResult).messages, 'billing')).toEqual(['w1: slow one']);
    const thread = await front.workflow.session('rj').messages();
    expect(textOf(thread, 'user')).toEqual(['slow one']);
    expect(one.counts).toEqual({ triage: 1, billing: 1 });
  });

  it('busy "interrupt": the running run stops as session.stop() does and the new input runs next', async () => {
    const b = backend();
    const name = `wk-${unique()}`;
    const shared: Ticks = { n: 0, stopAt: 1_000 };
    const front = ticker({ store: b.store(), label: 'server', name, shared });
    const handler = server(front.workflow, {
      authenticate,
      dispatcher: b.dispatcher(),
      busy: 'interrupt',
    });
    const one = ticker({ store: b.store(), label: 'w1', name, shared });
    await worker(one.workflow, { dispatcher: b.dispatcher() });
    expect((await answer(handler.fetch(request('POST', '/sessions', { id: 'it' })))).status).toBe(
      201,
    );

    const first = answer(
      handler.fetch(request('POST', '/sessions/it/runs', { input: 'loop please' })),
    );
    await until(() => shared.n >= 3);
    const second = answer(
      handler.fetch(request('POST', '/sessions/it/runs', { input: 'next one' })),
    );
    const stopped = await first;
    expect(stopped.status).toBe(200);
    const stoppedResult = stopped.json as TaskResult;
    expect(stoppedResult.status).toBe('terminated');
    expect(stoppedResult.stopReason).toBe('External termination requested');
    expect(stoppedResult.messages[0]).toMatchObject({
      type: 'TextMessage',
      content: 'loop please',
    });
    expect(textOf(stoppedResult.messages, 'billing').every((t) => /^w1 tick \d+$/.test(t))).toBe(
      true,
    );

    const next = await second;
    expect(next.status).toBe(200);
    const nextResult = next.json as TaskResult;
    expect(nextResult.status).toBe('terminated');
    expect(nextResult.stopReason).toBe("Text 'DONE' mentioned");
    expect(nextResult.messages[0]).toMatchObject({
      type: 'TextMessage',
      source: 'user',
      content: 'next one',
    });
    const ticks = shared.n;
    expect(textOf(nextResult.messages, 'billing')).toEqual([`w1 DONE ${ticks}`]);

    const thread = await front.workflow.session('it').messages();
    // The customer's texts (autonomous mode's own user-role prompt aside).
    expect(textOf(thread, 'user').filter((t) => t !== AUTONOMOUS)).toEqual([
      'loop please',
      'next one',
    ]);
    // Every tick made was committed once, in order; the stopped run's ticks are its own.
    const billing = textOf(thread, 'billing');
    expect(billing).toEqual([
      ...Array.from({ length: ticks - 1 }, (_, i) => `w1 tick ${i + 1}`),
      `w1 DONE ${ticks}`,
    ]);
    expect(textOf(stoppedResult.messages, 'billing')).toEqual(billing.slice(0, ticks - 1));
    expect(front.calls.billing).toBe(0);
  });

  it('the default queue is "baton.<workflow name>"', async () => {
    const b = backend();
    const name = `wk-${unique()}`;
    const front = desk({ store: b.store(), label: 'server', name });
    const handler = server(front.workflow, {
      authenticate,
      dispatcher: b.dispatcher(`baton.${name}`),
    });
    const one = desk({ store: b.store(), label: 'w1', name });
    await worker(one.workflow, { dispatcher: b.dispatcher(null) });
    expect((await answer(handler.fetch(request('POST', '/sessions', { id: 'dq' })))).status).toBe(
      201,
    );
    const posted = await answer(
      handler.fetch(request('POST', '/sessions/dq/runs', { input: 'queued' })),
    );
    expect(posted.status).toBe(200);
    expect(textOf((posted.json as TaskResult).messages, 'billing')).toEqual(['w1: queued']);
  });

  it('a client streaming from another server instance sees the run that a worker makes', async () => {
    const b = backend();
    const name = `wk-${unique()}`;
    const gate = new Gate();
    const front = desk({ store: b.store(), label: 'server', name });
    const handler = server(front.workflow, { authenticate, dispatcher: b.dispatcher() });
    const other = desk({ store: b.store(), label: 'server2', name });
    const otherHandler = server(other.workflow, { authenticate, dispatcher: b.dispatcher() });
    const one = desk({ store: b.store(), label: 'w1', name, gate: { agent: 'billing', gate } });
    await worker(one.workflow, { dispatcher: b.dispatcher() });
    expect((await answer(handler.fetch(request('POST', '/sessions', { id: 'st' })))).status).toBe(
      201,
    );

    const posted = answer(
      handler.fetch(request('POST', '/sessions/st/runs', { input: 'slow stream' })),
    );
    await gate.started;
    const response = await otherHandler.fetch(
      request('GET', '/sessions/st/stream', undefined, { accept: 'text/event-stream' }),
    );
    expect(response.status).toBe(200);
    const events: { event?: string | undefined; data: string }[] = [];
    const reading = (async () => {
      for await (const event of sseEvents(response.body!)) events.push(event);
    })();
    gate.open();
    const result = (await posted).json as TaskResult;
    await reading;
    expect(events.at(-1)?.event).toBe('result');
    const streamed = events
      .filter((e) => e.event !== 'result')
      .map((e) => JSON.parse(e.data) as AgentMessage);
    expect(streamed.map((m) => m.id)).toEqual(result.messages.map((m) => m.id));
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ status: 'awaiting_input' });
    expect(front.counts.billing + other.counts.billing).toBe(0);
  });
  it('sessions run in parallel across workers: two sessions are in their turns at once', async () => {
    const b = backend();
    const name = `wk-${unique()}`;
    const gates = { w1: new Gate(), w2: new Gate() };
    const front = desk({ store: b.store(), label: 'server', name });
    const handler = server(front.workflow, { authenticate, dispatcher: b.dispatcher() });
    // Each worker takes one job at a time; each holds its billing call at its own gate.
    const one = desk({
      store: b.store(),
      label: 'w1',
      name,
      gate: { agent: 'billing', gate: gates.w1 },
    });
    const two = desk({
      store: b.store(),
      label: 'w2',
      name,
      gate: { agent: 'billing', gate: gates.w2 },
    });
    await worker(one.workflow, { dispatcher: b.dispatcher(), concurrency: 1 });
    await worker(two.workflow, { dispatcher: b.dispatcher(), concurrency: 1 });
    for (const id of ['p1', 'p2']) {
      expect((await answer(handler.fetch(request('POST', '/sessions', { id })))).status).toBe(201);
    }
    const posted = ['p1', 'p2'].map((id) =>
      answer(handler.fetch(request('POST', `/sessions/${id}/runs`, { input: `slow ${id}` }))),
    );
    // Both turns are running at the same time, one on each worker.
    await Promise.all([gates.w1.started, gates.w2.started]);
    gates.w1.open();
    gates.w2.open();
    const results = (await Promise.all(posted)).map((a) => a.json as TaskResult);
    const texts = results.map((r) => textOf(r.messages, 'billing')[0]);
    expect(texts.map((t) => t!.slice(0, 2)).sort()).toEqual(['w1', 'w2']);
    expect(texts.map((t) => t!.slice(4))).toEqual(['slow p1', 'slow p2']);
    expect(one.counts.billing + two.counts.billing).toBe(2);
  });
  it('POST /sessions/:id/runs with Accept: text/event-stream streams the run a worker makes, then its result', async () => {
    const b = backend();
    const name = `wk-${unique()}`;
    const front = desk({ store: b.store(), label: 'server', name });
    const handler = server(front.workflow, { authenticate, dispatcher: b.dispatcher() });
    const one = desk({ store: b.store(), label: 'w1', name });
    await worker(one.workflow, { dispatcher: b.dispatcher() });
    expect((await answer(handler.fetch(request('POST', '/sessions', { id: 'sse' })))).status).toBe(
      201,
    );
    const response = await handler.fetch(
      request(
        'POST',
        '/sessions/sse/runs',
        { input: 'stream me' },
        { accept: 'text/event-stream' },
      ),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type') ?? '').toMatch(/^text\/event-stream/);
    const events: { event?: string | undefined; data: string }[] = [];
    for await (const event of sseEvents(response.body!)) events.push(event);
    expect(events.at(-1)?.event).toBe('result');
    const result = JSON.parse(events.at(-1)!.data) as TaskResult;
    expect(result.status).toBe('awaiting_input');
    const streamed = events.slice(0, -1).map((e) => JSON.parse(e.data) as AgentMessage);
    expect(streamed.map((m) => m.type)).toEqual(events.slice(0, -1).map((e) => e.event));
    const thread = await front.workflow.session('sse').messages();
    expect(streamed.map((m) => m.id)).toEqual(thread.map((m) => m.id));
    expect(textOf(streamed, 'billing')).toEqual(['w1: stream me']);
    expect(front.counts).toEqual({ triage: 0, billing: 0 });
  });
});
