// Independent suite for API.md §15, the route table, over real HTTP (node:http → handler.fetch).
// Written from API.md alone. Readings where the page is open:
// - error `code` values are not named by API.md: only the shape `{error: {code, message}}` (exactly
//   those keys, non-empty strings) is asserted;
// - `POST /sessions/:id/runs` without `Accept: text/event-stream` answers 200 with the TaskResult;
// - `GET /sessions/:id` is `info()` of the session as the library itself reports it (compared
//   with `workflow.session(id).info()` after the JSON round trip);
// - `GET /sessions/:id/messages?after=<step>` after a first run's last step is the second run's
//   messages; a run's `TaskResult.messages` (task first) are what it committed.
import { afterEach, describe, expect, it } from 'vitest';

import { serve, textMessage } from '../../../src/index.js';
import { authenticate, client, desk, errorOf, Gate, listen, type Server, wire } from './support.js';

let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: Parameters<typeof desk>[0] = {}) {
  const made = desk(options);
  server = await listen(serve(made.workflow, { authenticate }));
  return { ...made, alice: client(server.url, 'alice'), bob: client(server.url, 'bob') };
}

type Result = {
  type: string;
  status: string;
  stopReason: string | null;
  sessionId: string;
  messages: { type: string; source: string; content?: unknown; id: string }[];
  pendingRequest?: { id: string; agent: string; prompt: string; kind: string; calls?: unknown[] };
};

describe('GET /healthz (API.md §15)', () => {
  it('answers 200 without authentication', async () => {
    await start();
    const anonymous = client(server!.url);
    expect((await anonymous.get('/healthz')).status).toBe(200);
  });
});

describe('POST /sessions (API.md §15)', () => {
  it('answers 201 {id} with the id given', async () => {
    const { alice } = await start();
    const created = await alice.post('/sessions', { id: 'routes-given' });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ id: 'routes-given' });
  });

  it('answers 201 {id} with a generated id when none is given, a new one each time', async () => {
    const { alice } = await start();
    const one = await alice.post('/sessions', {});
    const two = await alice.post('/sessions', {});
    expect(one.status).toBe(201);
    expect(two.status).toBe(201);
    const a = (one.json as { id: string }).id;
    const b = (two.json as { id: string }).id;
    expect(Object.keys(one.json as object)).toEqual(['id']);
    expect(typeof a).toBe('string');
    expect(a).not.toBe('');
    expect(a).not.toBe(b);
    expect((await alice.get(`/sessions/${a}`)).status).toBe(200);
  });
});

describe('GET /sessions/:id (API.md §15)', () => {
  it('answers info() of a session created and not yet run', async () => {
    const { alice, workflow } = await start();
    await alice.post('/sessions', { id: 'routes-info-new' });
    const info = await alice.get('/sessions/routes-info-new');
    expect(info.status).toBe(200);
    expect((info.json as { status: string }).status).toBe('idle');
    expect(info.json).toEqual(wire(await workflow.session('routes-info-new').info()));
  });

  it('answers info() with the pendingRequest of a paused session', async () => {
    const { alice, workflow } = await start();
    await alice.post('/sessions', { id: 'routes-info-paused' });
    await alice.post('/sessions/routes-info-paused/runs', { input: 'hello' });
    const info = await alice.get('/sessions/routes-info-paused');
    expect(info.status).toBe(200);
    const body = info.json as { status: string; pendingRequest: { agent: string; prompt: string } };
    expect(body.status).toBe('awaiting_input');
    expect(body.pendingRequest.agent).toBe('billing');
    expect(body.pendingRequest.prompt).toBe('Billing: hello');
    expect(info.json).toEqual(wire(await workflow.session('routes-info-paused').info()));
  });

  it('answers 404 with an error body for an id never created', async () => {
    const { alice } = await start();
    const missing = await alice.get('/sessions/routes-never');
    expect(missing.status).toBe(404);
    errorOf(missing);
  });
});

describe('POST /sessions/:id/runs as JSON (API.md §15)', () => {
  it('runs a string input and answers 200 with the TaskResult when the run ends', async () => {
    const { alice, workflow } = await start();
    await alice.post('/sessions', { id: 'routes-run' });
    const run = await alice.post('/sessions/routes-run/runs', { input: 'hello' });
    expect(run.status).toBe(200);
    expect(run.headers.get('content-type')).toMatch(/^application\/json/);
    const result = run.json as Result;
    expect(result.type).toBe('TaskResult');
    expect(result.status).toBe('awaiting_input');
    expect(result.stopReason).toBeNull();
    expect(result.sessionId).toBe('routes-run');
    expect(result.messages.map((m) => `${m.type}:${m.source}`)).toEqual([
      'TextMessage:user',
      'ToolCallRequestEvent:triage',
      'ToolCallExecutionEvent:triage',
      'HandoffMessage:triage',
      'TextMessage:billing',
      'UserInputRequestedEvent:billing',
    ]);
    expect(result.messages[0]!.content).toBe('hello');
    expect(result.pendingRequest).toEqual({
      id: expect.any(String),
      agent: 'billing',
      prompt: 'Billing: hello',
      kind: 'input',
    });
    expect(result.messages).toEqual(wire(await workflow.session('routes-run').messages()));
  });

  it('takes a ChatMessage as input and records it as given', async () => {
    const { alice, workflow } = await start();
    await alice.post('/sessions', { id: 'routes-chatmessage' });
    const message = textMessage({ source: 'user', content: 'as a message', metadata: { k: 1 } });
    const run = await alice.post('/sessions/routes-chatmessage/runs', { input: message });
    expect(run.status).toBe(200);
    const thread = await workflow.session('routes-chatmessage').messages();
    expect(wire(thread[0])).toEqual(wire(message));
    expect((run.json as Result).pendingRequest?.prompt).toBe('Billing: as a message');
  });

  it('decides approvals with `decisions`: approve runs the tool, reject gives its error result', async () => {
    const { alice, refunds } = await start();
    await alice.post('/sessions', { id: 'routes-approve' });
    const paused = (await alice.post('/sessions/routes-approve/runs', { input: 'refund please' }))
      .json as Result;
    expect(paused.status).toBe('awaiting_input');
    expect(paused.pendingRequest?.kind).toBe('approval');
    const calls = paused.pendingRequest?.calls as { id: string; name: string; arguments: string }[];
    expect(calls).toEqual([
      { id: expect.any(String), name: 'refund', arguments: '{"invoiceId":"42"}' },
    ]);
    expect(refunds).toEqual([]);
    const decided = await alice.post('/sessions/routes-approve/runs', {
      decisions: [{ callId: calls[0]!.id, approve: true }],
    });
    expect(decided.status).toBe(200);
    const result = decided.json as Result;
    expect(refunds).toEqual(['42']);
    expect(result.messages.map((m) => `${m.type}:${m.source}`)).toEqual([
      'ToolApprovalResponseEvent:user',
      'ToolCallExecutionEvent:billing',
      'TextMessage:billing',
      'UserInputRequestedEvent:billing',
    ]);
    expect(result.pendingRequest?.prompt).toBe('Done: refunded 42');

    await alice.post('/sessions', { id: 'routes-reject' });
    const again = (await alice.post('/sessions/routes-reject/runs', { input: 'refund please' }))
      .json as Result;
    const callId = (again.pendingRequest?.calls as { id: string }[])[0]!.id;
    const rejected = (
      await alice.post('/sessions/routes-reject/runs', {
        decisions: [{ callId, approve: false, reason: 'no' }],
      })
    ).json as Result;
    expect(refunds).toEqual(['42']);
    expect(rejected.pendingRequest?.prompt).toBe(
      'Done: Tool call "refund" was rejected by the user: no',
    );
  });
});

describe('POST /sessions/:id/runs with no input (API.md §15, §10)', () => {
  it('while approvals are pending: the same request again, nothing run, nothing committed', async () => {
    const { alice, workflow, refunds } = await start();
    await alice.post('/sessions', { id: 'routes-no-input' });
    const paused = (await alice.post('/sessions/routes-no-input/runs', { input: 'refund it' }))
      .json as Result;
    const session = workflow.session('routes-no-input');
    const thread = wire(await session.messages());
    const again = await alice.post('/sessions/routes-no-input/runs', {});
    expect(again.status).toBe(200);
    const result = again.json as Result;
    expect(result.status).toBe('awaiting_input');
    expect(result.pendingRequest).toEqual(paused.pendingRequest);
    expect(refunds).toEqual([]);
    expect(wire(await session.messages())).toEqual(thread);
  });
});

describe('GET /sessions/:id/messages (API.md §15)', () => {
  it('answers {messages}: the thread, or what was committed after `step`', async () => {
    const { alice, workflow } = await start();
    await alice.post('/sessions', { id: 'routes-messages' });
    const empty = await alice.get('/sessions/routes-messages/messages');
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({ messages: [] });

    await alice.post('/sessions/routes-messages/runs', { input: 'one' });
    const session = workflow.session('routes-messages');
    const firstThread = wire(await session.messages());
    const firstStep = (await session.info()).step;
    const second = (await alice.post('/sessions/routes-messages/runs', { input: 'two' }))
      .json as Result;
    const whole = await alice.get('/sessions/routes-messages/messages');
    expect(whole.json).toEqual({ messages: wire(await session.messages()) });
    const after = await alice.get(`/sessions/routes-messages/messages?after=${firstStep}`);
    expect(after.status).toBe(200);
    expect(after.json).toEqual({ messages: second.messages });
    expect((whole.json as { messages: unknown[] }).messages.slice(firstThread.length)).toEqual(
      second.messages,
    );
    const lastStep = (await session.info()).step;
    expect((await alice.get(`/sessions/routes-messages/messages?after=${lastStep}`)).json).toEqual({
      messages: [],
    });
  });
});

describe('GET /sessions (API.md §15)', () => {
  it("lists the caller's sessions {id, status, step, updatedAt}, newest first, paged", async () => {
    const { alice, workflow } = await start();
    for (const id of ['routes-list-a', 'routes-list-b', 'routes-list-c']) {
      await alice.post('/sessions', { id });
      await alice.post(`/sessions/${id}/runs`, { input: `hi ${id}` });
    }
    const all = await alice.get('/sessions');
    expect(all.status).toBe(200);
    const body = all.json as {
      sessions: { id: string; status: string; step: number; updatedAt: string }[];
      cursor?: string;
    };
    expect(body.cursor).toBeUndefined();
    expect(body.sessions.map((s) => s.id)).toEqual([
      'routes-list-c',
      'routes-list-b',
      'routes-list-a',
    ]);
    for (const s of body.sessions) {
      const info = await workflow.session(s.id).info();
      expect(Object.keys(s).sort()).toEqual(['id', 'status', 'step', 'updatedAt']);
      expect(s.status).toBe('awaiting_input');
      expect(s.step).toBe(info.step);
      expect(new Date(s.updatedAt).toISOString()).toBe(s.updatedAt);
    }

    await alice.post('/sessions', { id: 'routes-list-fresh' });
    const withFresh = (await alice.get('/sessions')).json as typeof body;
    expect(withFresh.sessions.map((s) => [s.id, s.status])).toContainEqual([
      'routes-list-fresh',
      'idle',
    ]);
    await alice.del('/sessions/routes-list-fresh');

    const first = (await alice.get('/sessions?limit=2')).json as typeof body;
    expect(first.sessions.map((s) => s.id)).toEqual(['routes-list-c', 'routes-list-b']);
    expect(typeof first.cursor).toBe('string');
    const next = (await alice.get(`/sessions?limit=2&cursor=${encodeURIComponent(first.cursor!)}`))
      .json as typeof body;
    expect(next.sessions.map((s) => s.id)).toEqual(['routes-list-a']);
    expect(next.cursor).toBeUndefined();
  });
});

describe('POST /sessions/:id/stop (API.md §15)', () => {
  it('answers 202 and stops the running session after the current agent turn', async () => {
    const gate = new Gate();
    const { alice } = await start({ gate, gated: 'triage' });
    await alice.post('/sessions', { id: 'routes-stop' });
    const running = alice.post('/sessions/routes-stop/runs', { input: 'slow please' });
    await gate.started;
    const stop = await alice.post('/sessions/routes-stop/stop', {});
    expect(stop.status).toBe(202);
    gate.open();
    const result = (await running).json as Result;
    expect(result.status).toBe('terminated');
    expect(result.stopReason).toBe('External termination requested');
    expect(result.messages.map((m) => m.type)).toEqual([
      'TextMessage',
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
      'HandoffMessage',
    ]);
  });
});

describe('DELETE /sessions/:id (API.md §15)', () => {
  it('answers 204 and the session is gone: 404 after, and not listed', async () => {
    const { alice, workflow } = await start();
    await alice.post('/sessions', { id: 'routes-delete' });
    await alice.post('/sessions/routes-delete/runs', { input: 'hello' });
    const deleted = await alice.del('/sessions/routes-delete');
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await alice.get('/sessions/routes-delete')).status).toBe(404);
    expect((await alice.get('/sessions/routes-delete/messages')).status).toBe(404);
    const list = (await alice.get('/sessions')).json as { sessions: { id: string }[] };
    expect(list.sessions.map((s) => s.id)).not.toContain('routes-delete');
    expect(await workflow.session('routes-delete').messages()).toEqual([]);
    expect((await alice.post('/sessions', { id: 'routes-delete' })).status).toBe(201);
  });
});

describe('GET /chat/:id/stream (API.md §15)', () => {
  it('answers 204 when nothing runs', async () => {
    const { alice } = await start();
    await alice.post('/sessions', { id: 'routes-chat-idle' });
    await alice.post('/sessions/routes-chat-idle/runs', { input: 'hello' });
    const idle = await alice.get('/chat/routes-chat-idle/stream');
    expect(idle.status).toBe(204);
    expect(idle.text).toBe('');
  });
});

describe('unknown routes and wrong methods (API.md §15)', () => {
  it('answers 404 for an unknown route and 405 for a wrong method, with error bodies', async () => {
    const { alice } = await start();
    await alice.post('/sessions', { id: 'routes-405' });
    for (const path of ['/nope', '/sessions/routes-405/nope', '/chats', '/ag-ui/x']) {
      const a = await alice.get(path);
      expect(a.status, path).toBe(404);
      errorOf(a);
    }
    const wrong: [string, string][] = [
      ['PUT', '/sessions'],
      ['PATCH', '/sessions/routes-405'],
      ['GET', '/sessions/routes-405/runs'],
      ['GET', '/sessions/routes-405/stop'],
      ['POST', '/sessions/routes-405/messages'],
      ['GET', '/chat'],
      ['GET', '/ag-ui'],
      ['POST', '/healthz'],
    ];
    for (const [method, path] of wrong) {
      const a = await (async () => {
        const r = await alice.raw(method, path, method === 'GET' ? undefined : {});
        const text = await r.text();
        return {
          status: r.status,
          headers: r.headers,
          text,
          json: text ? JSON.parse(text) : undefined,
        };
      })();
      expect(a.status, `${method} ${path}`).toBe(405);
      errorOf(a);
    }
  });
});
