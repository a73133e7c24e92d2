// Independent suite for API.md §15: input while a session runs (busy: "reject", the default),
// DELETE of a running session, and a client that disconnects mid-stream. Written from API.md alone.
// Readings where the page is open:
// - `Retry-After` is a delay in seconds (RFC 9110 allows an HTTP date too; a number is asserted);
// - a rejected input commits nothing: after the running run ends, the thread holds that run only;
// - `POST /chat` and `POST /ag-ui` answer the busy session with the HTTP status 409 itself (not an
//   error event inside a 200 stream), "on /runs, /chat and /ag-ui alike".
import { afterEach, describe, expect, it } from 'vitest';

import { serve } from '../../../src/index.js';
import {
  authenticate,
  client,
  desk,
  errorOf,
  Gate,
  listen,
  type Server,
  sseEvents,
  until,
  wire,
} from './support.js';

let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function running(id: string) {
  const gate = new Gate();
  const made = desk({ gate });
  server = await listen(serve(made.workflow, { authenticate }));
  const alice = client(server.url, 'alice');
  await alice.post('/sessions', { id });
  const run = alice.post(`/sessions/${id}/runs`, { input: 'slow one' });
  await gate.started;
  return { ...made, alice, gate, run };
}

const retryAfter = (headers: Headers) => headers.get('retry-after');

describe('busy: "reject" (API.md §15)', () => {
  it('answers input on /runs while the session runs 409 with Retry-After, committing nothing', async () => {
    const { alice, gate, run, workflow } = await running('busy-runs');
    const second = await alice.post('/sessions/busy-runs/runs', { input: 'second' });
    expect(second.status).toBe(409);
    expect(retryAfter(second.headers)).toMatch(/^\d+$/);
    errorOf(second);
    gate.open();
    const result = (await run).json as { messages: unknown[]; status: string };
    expect(result.status).toBe('awaiting_input');
    expect(wire(await workflow.session('busy-runs').messages())).toEqual(result.messages);
  });

  it('answers /chat input while the session runs 409 with Retry-After', async () => {
    const { alice, gate, run, workflow } = await running('busy-chat');
    const chat = await alice.post('/chat', {
      id: 'busy-chat',
      messages: [{ id: 'u-9', role: 'user', parts: [{ type: 'text', text: 'second' }] }],
      trigger: 'submit-message',
    });
    expect(chat.status).toBe(409);
    expect(retryAfter(chat.headers)).toMatch(/^\d+$/);
    errorOf(chat);
    gate.open();
    const result = (await run).json as { messages: unknown[] };
    expect(wire(await workflow.session('busy-chat').messages())).toEqual(result.messages);
  });

  it('answers /ag-ui input while the session runs 409 with Retry-After', async () => {
    const { alice, gate, run, workflow } = await running('busy-agui');
    const agui = await alice.post('/ag-ui', {
      threadId: 'busy-agui',
      runId: 'run-2',
      messages: [{ id: 'm-9', role: 'user', content: 'second' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    });
    expect(agui.status).toBe(409);
    expect(retryAfter(agui.headers)).toMatch(/^\d+$/);
    errorOf(agui);
    gate.open();
    const result = (await run).json as { messages: unknown[] };
    expect(wire(await workflow.session('busy-agui').messages())).toEqual(result.messages);
  });

  it('answers DELETE of a running session 409 and keeps it', async () => {
    const { alice, gate, run, workflow } = await running('busy-delete');
    const deleted = await alice.del('/sessions/busy-delete');
    expect(deleted.status).toBe(409);
    errorOf(deleted);
    gate.open();
    const result = (await run).json as { messages: unknown[] };
    expect((await alice.get('/sessions/busy-delete')).status).toBe(200);
    expect(wire(await workflow.session('busy-delete').messages())).toEqual(result.messages);
    expect((await alice.del('/sessions/busy-delete')).status).toBe(204);
  });
});

describe('client disconnect (API.md §15)', () => {
  for (const route of ['/chat', '/ag-ui'] as const) {
    it(`a client that disconnects from ${route} mid-stream does not stop the run`, async () => {
      const gate = new Gate();
      const { workflow } = desk({ gate });
      server = await listen(serve(workflow, { authenticate }));
      const alice = client(server.url, 'alice');
      const id = `disconnect-${route.slice(1)}`;
      const body =
        route === '/chat'
          ? {
              id,
              messages: [
                { id: 'u-1', role: 'user', parts: [{ type: 'text', text: 'slow hello' }] },
              ],
              trigger: 'submit-message',
            }
          : {
              threadId: id,
              runId: 'run-1',
              messages: [{ id: 'm-1', role: 'user', content: 'slow hello' }],
              tools: [],
              context: [],
              state: {},
              forwardedProps: {},
            };
      const abort = new AbortController();
      const response = await fetch(server.url + route, {
        method: 'POST',
        headers: { ...alice.auth, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify(body),
        signal: abort.signal,
      });
      expect(response.status).toBe(200);
      const events = sseEvents(response.body!);
      await events.next();
      await gate.started;
      abort.abort();
      await events.return(undefined).catch(() => undefined);
      gate.open();
      const session = workflow.session(id);
      await until(async () => (await session.info()).status === 'awaiting_input');
      const thread = await session.messages();
      expect(thread.map((m) => `${m.type}:${m.source}`)).toEqual([
        'TextMessage:user',
        'ToolCallRequestEvent:triage',
        'ToolCallExecutionEvent:triage',
        'HandoffMessage:triage',
        'TextMessage:billing',
        'UserInputRequestedEvent:billing',
      ]);
      expect((thread[4] as { content: string }).content).toBe('Billing: slow hello');
    });
  }

  it('a client that disconnects from /runs mid-stream does not stop the run', async () => {
    const gate = new Gate();
    const { workflow } = desk({ gate });
    server = await listen(serve(workflow, { authenticate }));
    const alice = client(server.url, 'alice');
    await alice.post('/sessions', { id: 'disconnect' });
    const abort = new AbortController();
    const response = await fetch(`${server.url}/sessions/disconnect/runs`, {
      method: 'POST',
      headers: { ...alice.auth, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'slow hello' }),
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    const events = sseEvents(response.body!);
    const first = await events.next();
    expect(first.value?.event).toBe('TextMessage');
    await gate.started;
    abort.abort();
    await events.return(undefined).catch(() => undefined);
    gate.open();
    const session = workflow.session('disconnect');
    await until(async () => (await session.info()).status === 'awaiting_input');
    const thread = await session.messages();
    expect(thread.map((m) => `${m.type}:${m.source}`)).toEqual([
      'TextMessage:user',
      'ToolCallRequestEvent:triage',
      'ToolCallExecutionEvent:triage',
      'HandoffMessage:triage',
      'TextMessage:billing',
      'UserInputRequestedEvent:billing',
    ]);
    expect((thread[4] as { content: string }).content).toBe('Billing: slow hello');
  });
});
