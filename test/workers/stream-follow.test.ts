// API.md §15/§16: a stream opened on any server instance follows a session's queued run until the
// run ends, not only while a worker holds the session's lease — a session runs while a job of it
// is in the queue (waiting for a worker, running, or held by a worker that died) — and ends when
// nothing will run it (its job is done, no lease is held). The kill-and-resume case is in
// test/independent/workers/lifecycle.test.ts.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

import {
  Agent,
  type AgentMessage,
  HandoffBuilder,
  ScriptedChatClient,
  type TaskResult,
} from '../../src/index.js';
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
  type SseEvent,
  sseEvents,
  type Ticks,
  ticker,
  unique,
  until,
  worker,
} from '../independent/workers/support.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const backends: Backend[] = [];
afterEach(async () => {
  await closeAll();
});
afterAll(async () => {
  for (const b of backends) await b.drop();
});

async function read(response: Response): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of sseEvents(response.body!)) events.push(event);
  return events;
}

const sse = { accept: 'text/event-stream' };

/** Waits at `gate` until it opens or the model call is aborted (then throws, as a real client does). */
async function hang(gate: Gate, signal: AbortSignal | undefined): Promise<void> {
  const aborted = new Promise<void>((_resolve, reject) => {
    if (signal?.aborted) reject(new Error('aborted'));
    signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
  });
  await Promise.race([gate.pass(), aborted]);
}

/** A desk whose coordinator's model is down: every run fails. */
function brokenDesk(store: Backend['store'], name: string) {
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient(() => {
      throw new Error('model down');
    }),
  });
  const billing = new Agent({
    name: 'billing',
    client: new ScriptedChatClient(() => ({ content: 'never', toolCalls: [] })),
  });
  return new HandoffBuilder({ name, participants: [triage, billing] })
    .coordinator(triage)
    .withCheckpointing(store())
    .build();
}

describe.each(['pg-boss', 'bullmq'] as const)('streams of a queued run on %s', (kind: Kind) => {
  const backend = () => {
    const b = new Backend(kind);
    backends.push(b);
    return b;
  };

  it('opened while the input waits for a worker (no lease held): the SSE and UI message streams of another server follow the run to its pause', async () => {
    const b = backend();
    const name = `sf-${unique()}`;
    const front = desk({ store: b.store(), label: 'server', name });
    const handler = server(front.workflow, { authenticate, dispatcher: b.dispatcher() });
    const other = desk({ store: b.store(), label: 'server2', name });
    const otherHandler = server(other.workflow, { authenticate, dispatcher: b.dispatcher() });
    expect((await answer(handler.fetch(request('POST', '/sessions', { id: 'sq' })))).status).toBe(
      201,
    );
    const posted = answer(handler.fetch(request('POST', '/sessions/sq/runs', { input: 'hello' })));
    const probe = b.dispatcher();
    await until(() => probe.pending(b.queue, 'sq'));

    const plain = await otherHandler.fetch(request('GET', '/sessions/sq/stream', undefined, sse));
    expect(plain.status).toBe(200);
    const ui = await otherHandler.fetch(request('GET', '/chat/sq/stream'));
    expect(ui.status).toBe(200);
    const reading = Promise.all([read(plain), read(ui)]);

    const w = desk({ store: b.store(), label: 'w1', name });
    await worker(w.workflow, { dispatcher: b.dispatcher() });
    const done = await posted;
    expect(done.status).toBe(200);
    const result = done.json as TaskResult;
    expect(result.status).toBe('awaiting_input');
    const [events, chunks] = await reading;

    expect(events.at(-1)?.event).toBe('result');
    expect(JSON.parse(events.at(-1)!.data)).toEqual(result);
    const streamed = events.slice(0, -1).map((e) => JSON.parse(e.data) as AgentMessage);
    expect(streamed.map((m) => m.id)).toEqual(result.messages.map((m) => m.id));

    const parsed = chunks
      .filter((c) => c.data !== '[DONE]')
      .map((c) => JSON.parse(c.data) as { type: string; delta?: string });
    // The session's creation is its step 1: the run's message is named after step 2.
    expect(parsed.at(0)).toEqual({ type: 'start', messageId: 'sq:2' });
    expect(parsed.filter((c) => c.type === 'text-delta').map((c) => c.delta)).toEqual([
      'w1: hello',
    ]);
    expect(parsed.slice(-2)).toEqual([
      {
        type: 'message-metadata',
        messageMetadata: { status: 'awaiting_input', pendingRequest: result.pendingRequest },
      },
      { type: 'finish', finishReason: 'stop' },
    ]);
    expect(w.counts).toEqual({ triage: 1, billing: 1 });
    expect(front.counts.billing + other.counts.billing).toBe(0);

    // The job done and the lease let go: nothing runs the session any more.
    await until(async () => !(await probe.pending(b.queue, 'sq')));
    const after = await otherHandler.fetch(request('GET', '/sessions/sq/stream', undefined, sse));
    expect(after.status).toBe(204);
  });

  it('a run that fails in its worker: the stream of another server ends once its job is done (nothing will resume it)', async () => {
    const b = backend();
    const name = `sf-${unique()}`;
    const store = () => b.store();
    const handler = server(brokenDesk(store, name), { authenticate, dispatcher: b.dispatcher() });
    const otherHandler = server(brokenDesk(store, name), {
      authenticate,
      dispatcher: b.dispatcher(),
    });
    expect((await answer(handler.fetch(request('POST', '/sessions', { id: 'sf' })))).status).toBe(
      201,
    );
    const posted = answer(handler.fetch(request('POST', '/sessions/sf/runs', { input: 'hello' })));
    const probe = b.dispatcher();
    await until(() => probe.pending(b.queue, 'sf'));
    const plain = await otherHandler.fetch(request('GET', '/sessions/sf/stream', undefined, sse));
    expect(plain.status).toBe(200);
    const reading = read(plain);

    await worker(brokenDesk(store, name), { dispatcher: b.dispatcher() });
    const done = await posted;
    expect(done.status).toBe(500);
    const events = await reading;
    expect(events.map((e) => e.event)).toEqual(['TextMessage', 'error']);
    expect(JSON.parse(events[1]!.data)).toEqual(done.json);
  });

  it.each([
    {
      how: 'handed on after the turn it was making',
      shutdownTimeoutMs: 30_000,
      billing: ['A tick 1', 'A tick 2', 'B tick 3', 'B DONE 4'],
    },
    {
      how: 'cut short after shutdownTimeoutMs',
      shutdownTimeoutMs: 0,
      billing: ['A tick 1', 'B tick 3', 'B DONE 4'],
    },
  ])(
    'a run a stopped worker $how (cancelled in the log) does not end the stream: it follows the worker that goes on, to the end',
    async ({ shutdownTimeoutMs, billing }) => {
      const b = backend();
      const name = `sf-${unique()}`;
      const shared: Ticks = { n: 0, stopAt: 4 };
      const held = new Gate();
      const front = ticker({ store: b.store(), label: 'server', name, shared });
      const handler = server(front.workflow, { authenticate, dispatcher: b.dispatcher() });
      const other = ticker({ store: b.store(), label: 'server2', name, shared });
      const otherHandler = server(other.workflow, { authenticate, dispatcher: b.dispatcher() });
      const a = ticker({
        store: b.store(),
        label: 'A',
        name,
        shared,
        hold: async (n, signal) => {
          if (n === 2) await hang(held, signal);
        },
      });
      const workerA = await worker(a.workflow, { dispatcher: b.dispatcher(), shutdownTimeoutMs });
      expect((await answer(handler.fetch(request('POST', '/sessions', { id: 'sc' })))).status).toBe(
        201,
      );
      const posted = answer(handler.fetch(request('POST', '/sessions/sc/runs', { input: 'loop' })));
      await held.started;
      const plain = await otherHandler.fetch(request('GET', '/sessions/sc/stream', undefined, sse));
      expect(plain.status).toBe(200);
      const reading = read(plain);
      const closing = workerA.close();
      // Handed on: the held turn finishes (and is committed) once let go; cut short: it was aborted.
      if (shutdownTimeoutMs === 0) await closing;
      held.open();
      await closing;

      const bee = ticker({ store: b.store(), label: 'B', name, shared });
      await worker(bee.workflow, { dispatcher: b.dispatcher() });
      const done = await posted;
      expect(done.status).toBe(200);
      const result = done.json as TaskResult;
      expect(result.stopReason).toBe("Text 'DONE' mentioned");
      const events = await reading;
      expect(events.at(-1)?.event).toBe('result');
      // The stop reason too, which the log does not keep: the worker left it for the servers.
      expect(JSON.parse(events.at(-1)!.data)).toEqual(result);
      const streamed = events.slice(0, -1).map((e) => JSON.parse(e.data) as AgentMessage);
      const thread = await front.workflow.session('sc').messages();
      expect(streamed.map((m) => m.id)).toEqual(thread.map((m) => m.id));
      expect(
        thread
          .filter((m) => m.type === 'TextMessage' && m.source === 'billing')
          .map((m) => m.content),
      ).toEqual(billing);
    },
  );
});
