// Independent suite for API.md §15 plain SSE (`POST /sessions/:id/runs` with
// `Accept: text/event-stream`, `GET /sessions/:id/stream`), over real HTTP. Written from API.md
// alone. Readings where the page is open:
// - ids `<step>.<n>` are strictly increasing in (step, n) order along one stream; a committed
//   message's step is a step of `session.checkpoints()`, and a chunk's step is the step of the
//   message it becomes;
// - the message events of a run (chunks aside) are exactly its `TaskResult.messages`, in order;
// - a replay of committed events (no run going) is compared on its message events; whether such a
//   replay also sends a `result` event is left open in the single-run test; a cursor equal to the
//   last run's `result` id with no run going has "nothing after" it: 204;
// - "the stream ends at the next pause or stop" holds for replays too, so a client catches up on
//   several later runs by reconnecting from the last id it got; walking so, it receives every
//   event the live streams sent (chunks excepted: they are not committed) exactly once, with the
//   same ids and the same data, `result` events included;
// - a second process sharing the store knows the session's owner (owners live in the store);
// - "its position in that step" makes every id unique, chunks included: two chunks of one step
//   have two positions, so a client that reconnects after the first chunk gets the second chunk
//   once and the first never again.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import {
  Agent,
  type ChatClient,
  FileCheckpointStore,
  HandoffBuilder,
  MemoryCheckpointStore,
  type ModelResult,
  serve,
} from '../../../src/index.js';
import {
  allEvents,
  authenticate,
  client,
  desk,
  Gate,
  listen,
  type Server,
  type SseEvent,
  sseEvents,
} from './support.js';

const servers: Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function start(options: Parameters<typeof desk>[0] = {}) {
  const made = desk({ store: new MemoryCheckpointStore(), ...options });
  const server = await listen(serve(made.workflow, { authenticate }));
  servers.push(server);
  return { ...made, server, alice: client(server.url, 'alice') };
}

// Reading (lead, after this suite found duplicate chunk ids): `<step>.<n>` cannot give chunks
// positions among a step's messages that a process reading the step log would give them too
// (chunks are not in the log), so a chunk's id is `<step>.0.<k>`: the step being made, before its
// first message, k-th chunk. Ids still order every event of the stream.
const cursor = (id: string | undefined): [number, number, number] => {
  expect(id).toMatch(/^\d+\.\d+$|^\d+\.0\.\d+$/);
  const [step, n, chunk] = id!.split('.').map(Number);
  return [step!, n!, chunk ?? 0];
};
const increasing = (events: SseEvent[]) => {
  for (let i = 1; i < events.length; i++) {
    const [s0, n0, c0] = cursor(events[i - 1]!.id);
    const [s1, n1, c1] = cursor(events[i]!.id);
    const after = s1 > s0 || (s1 === s0 && (n1 > n0 || (n1 === n0 && c1 > c0)));
    expect(after, `${events[i - 1]!.id} then ${events[i]!.id}`).toBe(true);
  }
};
const messagesOf = (events: SseEvent[]) =>
  events
    .filter((e) => e.event !== 'result' && e.event !== 'ModelClientStreamingChunkEvent')
    .map((e) => JSON.parse(e.data) as { type: string; source: string; content?: unknown });
/** Events with their data parsed (a replay may serialise the same message with another key order). */
const parsed = (events: SseEvent[]) =>
  events.map((e) => ({ id: e.id, event: e.event, data: JSON.parse(e.data) as unknown }));
const resultOf = (events: SseEvent[]) =>
  JSON.parse(events.find((e) => e.event === 'result')!.data) as {
    type: string;
    status: string;
    messages: unknown[];
  };

function streamRun(server: Server, id: string, input: string, signal?: AbortSignal) {
  return fetch(`${server.url}/sessions/${id}/runs`, {
    method: 'POST',
    headers: {
      ...client(server.url, 'alice').auth,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: JSON.stringify({ input }),
    ...(signal ? { signal } : {}),
  });
}

function getStream(server: Server, id: string, lastEventId?: string) {
  return fetch(`${server.url}/sessions/${id}/stream`, {
    headers: {
      ...client(server.url, 'alice').auth,
      accept: 'text/event-stream',
      ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
    },
  });
}

describe('POST /sessions/:id/runs as SSE (API.md §15)', () => {
  it('sends one event per message (event = type, data = JSON), then `result`, ids <step>.<n>', async () => {
    const { server, alice, workflow } = await start();
    await alice.post('/sessions', { id: 'sse-run' });
    const response = await streamRun(server, 'sse-run', 'hello');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await allEvents(response);
    expect(events.map((e) => e.event)).toEqual([
      'TextMessage',
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
      'HandoffMessage',
      'TextMessage',
      'UserInputRequestedEvent',
      'result',
    ]);
    for (const e of events.slice(0, -1)) expect(JSON.parse(e.data).type).toBe(e.event);
    increasing(events);
    const result = resultOf(events);
    expect(result.type).toBe('TaskResult');
    expect(result.status).toBe('awaiting_input');
    expect(messagesOf(events)).toEqual(result.messages);
    const session = workflow.session('sse-run');
    const steps = (await session.checkpoints()).map((c) => c.step);
    for (const e of events.slice(0, -1)) expect(steps).toContain(cursor(e.id)[0]);
    expect(cursor(events.at(-2)!.id)[0]).toBe((await session.info()).step);
  });

  it('streams chunks with the id of the step being made, and keeps them out of the TaskResult', async () => {
    const { server, alice } = await start({ chunks: true });
    await alice.post('/sessions', { id: 'sse-chunks' });
    const events = await allEvents(await streamRun(server, 'sse-chunks', 'hello'));
    increasing(events);
    const chunks = events.filter((e) => e.event === 'ModelClientStreamingChunkEvent');
    expect(chunks.map((e) => JSON.parse(e.data).content)).toEqual(['Billing: ', 'hello']);
    const answer = events.find(
      (e) => e.event === 'TextMessage' && JSON.parse(e.data).source === 'billing',
    )!;
    expect(JSON.parse(answer.data).content).toBe('Billing: hello');
    for (const chunk of chunks) expect(cursor(chunk.id)[0]).toBe(cursor(answer.id)[0]);
    expect(messagesOf(events)).toEqual(resultOf(events).messages);
  });
});

describe('GET /sessions/:id/stream (API.md §15)', () => {
  it('answers 204 with no run going and no cursor, and with nothing after the cursor', async () => {
    const { server, alice } = await start();
    await alice.post('/sessions', { id: 'sse-204' });
    expect((await getStream(server, 'sse-204')).status).toBe(204);
    const events = await allEvents(await streamRun(server, 'sse-204', 'hello'));
    expect((await getStream(server, 'sse-204')).status).toBe(204);
    expect((await getStream(server, 'sse-204', events.at(-1)!.id)).status).toBe(204);
  });

  it('replays from the step log what came after Last-Event-ID: nothing missed, nothing repeated', async () => {
    const { server, alice } = await start();
    await alice.post('/sessions', { id: 'sse-replay' });
    const events = await allEvents(await streamRun(server, 'sse-replay', 'hello'));
    const messages = events.filter((e) => e.event !== 'result');
    for (let k = 0; k < messages.length - 1; k++) {
      const response = await getStream(server, 'sse-replay', messages[k]!.id);
      expect(response.status).toBe(200);
      const replay = (await allEvents(response)).filter((e) => e.event !== 'result');
      expect(parsed(replay)).toEqual(parsed(messages.slice(k + 1)));
    }
  });

  it('walks every later run with Last-Event-ID, however long after: each event exactly once, then 204', async () => {
    const { server, alice } = await start();
    await alice.post('/sessions', { id: 'sse-later' });
    const live: SseEvent[] = [];
    for (const input of ['one', 'two', 'three']) {
      live.push(...(await allEvents(await streamRun(server, 'sse-later', input))));
    }
    // A client that saw only the first event reconnects, again and again, from the last id it got.
    const seen: SseEvent[] = [live[0]!];
    for (let reconnects = 0; reconnects < 10; reconnects++) {
      const response = await getStream(server, 'sse-later', seen.at(-1)!.id);
      if (response.status === 204) break;
      expect(response.status).toBe(200);
      const got = await allEvents(response);
      expect(got.length).toBeGreaterThan(0);
      seen.push(...got);
    }
    expect((await getStream(server, 'sse-later', seen.at(-1)!.id)).status).toBe(204);
    increasing(seen);
    expect(parsed(seen)).toEqual(parsed(live));
  });

  it('with no cursor during a run: the current run from its start, then live, then `result`', async () => {
    const gate = new Gate();
    const { server, alice } = await start({ gate });
    await alice.post('/sessions', { id: 'sse-live' });
    const run = alice.post('/sessions/sse-live/runs', { input: 'slow hello' });
    await gate.started;
    const response = await getStream(server, 'sse-live');
    expect(response.status).toBe(200);
    const reading = allEvents(response);
    gate.open();
    const events = await reading;
    const result = (await run).json as { messages: unknown[] };
    increasing(events);
    expect(events.at(-1)!.event).toBe('result');
    expect(messagesOf(events)).toEqual(result.messages);
    expect(resultOf(events)).toEqual(result);
  });

  it('reconnecting mid-run with Last-Event-ID misses nothing and repeats nothing', async () => {
    const gate = new Gate();
    const { server, alice, workflow } = await start({ gate });
    await alice.post('/sessions', { id: 'sse-reconnect' });
    const abort = new AbortController();
    const response = await streamRun(server, 'sse-reconnect', 'slow hello', abort.signal);
    const before: SseEvent[] = [];
    for await (const event of sseEvents(response.body!)) {
      before.push(event);
      if (event.event === 'HandoffMessage') break;
    }
    await gate.started;
    abort.abort();
    const again = await getStream(server, 'sse-reconnect', before.at(-1)!.id);
    expect(again.status).toBe(200);
    const reading = allEvents(again);
    gate.open();
    const after = await reading;
    increasing([...before, ...after]);
    expect(after.at(-1)!.event).toBe('result');
    const thread = await workflow.session('sse-reconnect').messages();
    expect(messagesOf([...before, ...after])).toEqual(JSON.parse(JSON.stringify(thread)));
    expect(resultOf(after).messages).toEqual(JSON.parse(JSON.stringify(thread)));
  });

  it('reconnects mid-run to another process with Last-Event-ID: nothing missed, nothing repeated', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'baton-serve-sse-'));
    dirs.push(directory);
    const gate = new Gate();
    const one = desk({ store: new FileCheckpointStore(directory), gate });
    const two = desk({ store: new FileCheckpointStore(directory) });
    const a = await listen(serve(one.workflow, { authenticate }));
    const b = await listen(serve(two.workflow, { authenticate }));
    servers.push(a, b);
    await client(a.url, 'alice').post('/sessions', { id: 'sse-hop' });
    const abort = new AbortController();
    const response = await streamRun(a, 'sse-hop', 'slow hello', abort.signal);
    const before: SseEvent[] = [];
    for await (const event of sseEvents(response.body!)) {
      before.push(event);
      if (event.event === 'ToolCallExecutionEvent') break;
    }
    await gate.started;
    abort.abort();
    const again = await getStream(b, 'sse-hop', before.at(-1)!.id);
    expect(again.status).toBe(200);
    const reading = allEvents(again);
    gate.open();
    const after = await reading;
    increasing([...before, ...after]);
    const thread = JSON.parse(JSON.stringify(await two.workflow.session('sse-hop').messages()));
    expect(messagesOf([...before, ...after])).toEqual(thread);
  });

  it('follows a run of another process sharing the store', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'baton-serve-sse-'));
    dirs.push(directory);
    const gate = new Gate();
    const one = desk({ store: new FileCheckpointStore(directory), gate });
    const two = desk({ store: new FileCheckpointStore(directory) });
    const a = await listen(serve(one.workflow, { authenticate }));
    const b = await listen(serve(two.workflow, { authenticate }));
    servers.push(a, b);
    const alice = client(a.url, 'alice');
    await alice.post('/sessions', { id: 'sse-process' });
    const run = alice.post('/sessions/sse-process/runs', { input: 'slow hello' });
    await gate.started;
    const response = await getStream(b, 'sse-process');
    expect(response.status).toBe(200);
    const reading = allEvents(response);
    gate.open();
    const events = await reading;
    const result = (await run).json as { messages: unknown[] };
    increasing(events);
    expect(messagesOf(events)).toEqual(result.messages);
  });
});

describe('chunks across a reconnect (API.md §15)', () => {
  /** A streaming model that sends "a", waits at `gate`, then sends "b" and answers "ab". */
  function splitWriter(gate: Gate) {
    const result: ModelResult = {
      content: 'ab',
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0 },
    };
    const model: ChatClient = {
      create: async () => result,
      async *createStream() {
        yield 'a';
        await gate.pass();
        yield 'b';
        yield result;
      },
    };
    const writer = new Agent({ name: 'writer', client: model, stream: true });
    return new HandoffBuilder({ name: 'writer', participants: [writer] })
      .coordinator(writer)
      .withCheckpointing(new MemoryCheckpointStore())
      .build();
  }

  it('a client that saw the first chunk gets the second exactly once after reconnecting', async () => {
    const gate = new Gate();
    const server = await listen(serve(splitWriter(gate), { authenticate }));
    servers.push(server);
    await client(server.url, 'alice').post('/sessions', { id: 'sse-chunk-reconnect' });
    const abort = new AbortController();
    const response = await streamRun(server, 'sse-chunk-reconnect', 'write', abort.signal);
    const before: SseEvent[] = [];
    for await (const event of sseEvents(response.body!)) {
      before.push(event);
      if (event.event === 'ModelClientStreamingChunkEvent') break;
    }
    await gate.started;
    abort.abort();
    const again = await getStream(server, 'sse-chunk-reconnect', before.at(-1)!.id);
    expect(again.status).toBe(200);
    const reading = allEvents(again);
    gate.open();
    const after = await reading;
    const chunkTexts = [...before, ...after]
      .filter((e) => e.event === 'ModelClientStreamingChunkEvent')
      .map((e) => (JSON.parse(e.data) as { content: string }).content);
    expect(chunkTexts).toEqual(['a', 'b']);
    expect(after.map((e) => e.event)).toEqual([
      'ModelClientStreamingChunkEvent',
      'TextMessage',
      'UserInputRequestedEvent',
      'result',
    ]);
    increasing([...before, ...after]);
  });
});
