// Independent suite for API.md §15 "Bad input" and CORS, over real HTTP. Written from API.md alone.
// Readings where the page is open:
// - "a body over maxBodyBytes" counts the bytes of the request body; a body of exactly
//   maxBodyBytes is accepted, one byte more is 413, whether or not the request has Content-Length;
// - "400 naming the field": the error message contains the field's name (`id`, `input`,
//   `decisions`, `callId`, `approve`, `messages`, `threadId`);
// - "nothing committed" for an unknown callId: the step log, the thread and info() are unchanged
//   and no tool ran, even when the same request also decides a known call;
// - an actual (non-preflight) request from a listed origin gets `Access-Control-Allow-Origin` with
//   that origin (the page says only "default: no cross-origin access").
import { afterEach, describe, expect, it } from 'vitest';

import { MemoryCheckpointStore, serve } from '../../../src/index.js';
import {
  authenticate,
  client,
  desk,
  errorOf,
  listen,
  rawRequest,
  type Server,
  TOKENS,
  wire,
} from './support.js';

let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const json = { 'content-type': 'application/json', authorization: `Bearer ${TOKENS.alice}` };

describe('maxBodyBytes (API.md §15)', () => {
  it('accepts a body of exactly maxBodyBytes and answers 413 to one byte more', async () => {
    server = await listen(serve(desk().workflow, { authenticate, maxBodyBytes: 100 }));
    const alice = client(server.url, 'alice');
    const body = (n: number) => {
      const shell = JSON.stringify({ id: '' });
      return JSON.stringify({ id: 'b'.repeat(n - shell.length) });
    };
    expect(Buffer.byteLength(body(100))).toBe(100);
    const fits = await alice.post('/sessions', body(100));
    expect(fits.status).toBe(201);
    const over = await alice.post('/sessions', body(101));
    expect(over.status).toBe(413);
    errorOf(over);
  });

  it('counts bytes, not characters', async () => {
    server = await listen(serve(desk().workflow, { authenticate, maxBodyBytes: 100 }));
    const alice = client(server.url, 'alice');
    const body = JSON.stringify({ id: 'é'.repeat(46) });
    expect(body.length).toBeLessThanOrEqual(100);
    expect(Buffer.byteLength(body)).toBeGreaterThan(100);
    const over = await alice.post('/sessions', body);
    expect(over.status).toBe(413);
    errorOf(over);
  });

  it('answers 413 to a chunked body without Content-Length that grows past the limit', async () => {
    server = await listen(serve(desk().workflow, { authenticate, maxBodyBytes: 100 }));
    const a = await rawRequest(server.url, {
      method: 'POST',
      path: '/sessions',
      headers: json,
      chunks: ['{"id":"', 'c'.repeat(60), 'c'.repeat(60), '"}'],
    });
    expect(a.status).toBe(413);
    errorOf(a);
    const list = await client(server.url, 'alice').get('/sessions');
    expect((list.json as { sessions: unknown[] }).sessions).toEqual([]);
  });

  it('answers 413 on /chat and /ag-ui too', async () => {
    server = await listen(serve(desk().workflow, { authenticate, maxBodyBytes: 100 }));
    const alice = client(server.url, 'alice');
    const text = 'x'.repeat(200);
    const chat = await alice.post('/chat', {
      id: 'big-chat',
      messages: [{ id: 'u-1', role: 'user', parts: [{ type: 'text', text }] }],
      trigger: 'submit-message',
    });
    expect(chat.status).toBe(413);
    errorOf(chat);
    const agui = await alice.post('/ag-ui', {
      threadId: 'big-agui',
      runId: 'r',
      messages: [{ id: 'm-1', role: 'user', content: text }],
    });
    expect(agui.status).toBe(413);
    errorOf(agui);
    expect((await alice.get('/sessions/big-chat')).status).toBe(404);
    expect((await alice.get('/sessions/big-agui')).status).toBe(404);
  });

  it('defaults to 1_000_000 bytes', async () => {
    server = await listen(serve(desk().workflow, { authenticate }));
    const alice = client(server.url, 'alice');
    await alice.post('/sessions', { id: 'big-default' });
    const input = (n: number) => JSON.stringify({ input: 'x'.repeat(n - '{"input":""}'.length) });
    expect(Buffer.byteLength(input(1_000_001))).toBe(1_000_001);
    const over = await alice.post('/sessions/big-default/runs', input(1_000_001));
    expect(over.status).toBe(413);
    errorOf(over);
    const fits = await alice.post('/sessions/big-default/runs', input(1_000_000));
    expect(fits.status).toBe(200);
  });
});

describe('malformed and wrongly shaped bodies (API.md §15)', () => {
  it('answers 400 to malformed JSON', async () => {
    server = await listen(serve(desk().workflow, { authenticate }));
    const alice = client(server.url, 'alice');
    await alice.post('/sessions', { id: 'shape-json' });
    for (const path of ['/sessions', '/sessions/shape-json/runs', '/chat', '/ag-ui']) {
      const a = await alice.post(path, '{"input": "unterminated');
      expect(a.status, path).toBe(400);
      errorOf(a);
    }
  });

  it('answers 400 naming the field of a body of the wrong shape', async () => {
    server = await listen(serve(desk().workflow, { authenticate }));
    const alice = client(server.url, 'alice');
    await alice.post('/sessions', { id: 'shape-field' });
    const cases: [string, unknown, string][] = [
      ['/sessions', { id: 5 }, 'id'],
      ['/sessions/shape-field/runs', { input: 5 }, 'input'],
      ['/sessions/shape-field/runs', { input: { type: 'NoSuchMessage' } }, 'input'],
      ['/sessions/shape-field/runs', { decisions: 'yes' }, 'decisions'],
      ['/sessions/shape-field/runs', { decisions: [{ callId: 7, approve: true }] }, 'callId'],
      ['/sessions/shape-field/runs', { decisions: [{ callId: 'c-1', approve: 'yes' }] }, 'approve'],
      ['/chat', { id: 'shape-field', messages: 'hello', trigger: 'submit-message' }, 'messages'],
      ['/ag-ui', { threadId: 5, runId: 'r', messages: [] }, 'threadId'],
    ];
    for (const [path, body, field] of cases) {
      const a = await alice.post(path, body);
      expect(a.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(errorOf(a).message, `${path} ${JSON.stringify(body)}`).toContain(field);
    }
    expect((await alice.get('/sessions/shape-field/messages')).json).toEqual({ messages: [] });
  });
});

describe('unknown callId (API.md §15, §10)', () => {
  it('answers 400 and commits nothing, even when a known call is decided with it', async () => {
    const store = new MemoryCheckpointStore();
    const { workflow, refunds } = desk({ store });
    server = await listen(serve(workflow, { authenticate }));
    const alice = client(server.url, 'alice');
    await alice.post('/sessions', { id: 'unknown-call' });
    const paused = (await alice.post('/sessions/unknown-call/runs', { input: 'refund it' }))
      .json as {
      pendingRequest: { calls: { id: string }[] };
    };
    const callId = paused.pendingRequest.calls[0]!.id;
    const session = workflow.session('unknown-call');
    const before = {
      log: await session.checkpoints(),
      thread: wire(await session.messages()),
      info: wire(await session.info()),
    };
    for (const decisions of [
      [{ callId: 'no-such-call', approve: true }],
      [
        { callId, approve: true },
        { callId: 'no-such-call', approve: false },
      ],
    ]) {
      const a = await alice.post('/sessions/unknown-call/runs', { decisions });
      expect(a.status).toBe(400);
      expect(errorOf(a).message).toContain('no-such-call');
    }
    expect(refunds).toEqual([]);
    expect(await session.checkpoints()).toEqual(before.log);
    expect(wire(await session.messages())).toEqual(before.thread);
    expect(wire(await session.info())).toEqual(before.info);
    const ok = await alice.post('/sessions/unknown-call/runs', {
      decisions: [{ callId, approve: true }],
    });
    expect(ok.status).toBe(200);
    expect(refunds).toEqual(['42']);
  });
});

describe('unknown approval id on /chat (API.md §15)', () => {
  it('answers 400 and commits nothing', async () => {
    const store = new MemoryCheckpointStore();
    const { workflow, refunds } = desk({ store });
    server = await listen(serve(workflow, { authenticate }));
    const alice = client(server.url, 'alice');
    const user = { id: 'u-1', role: 'user', parts: [{ type: 'text', text: 'refund please' }] };
    await alice.post('/chat', { id: 'chat-unknown', messages: [user], trigger: 'submit-message' });
    const session = workflow.session('chat-unknown');
    const callId = (await session.info()).pendingRequest!.calls![0]!.id;
    const before = { log: await session.checkpoints(), thread: wire(await session.messages()) };
    const assistant = {
      id: 'a-1',
      role: 'assistant',
      parts: [
        {
          type: 'tool-refund',
          toolCallId: 'no-such-call',
          state: 'approval-responded',
          input: { invoiceId: '42' },
          approval: { id: 'no-such-call', approved: true },
        },
      ],
    };
    const a = await alice.post('/chat', {
      id: 'chat-unknown',
      messages: [user, assistant],
      trigger: 'submit-message',
    });
    expect(a.status).toBe(400);
    expect(errorOf(a).message).toContain('no-such-call');
    expect(refunds).toEqual([]);
    expect(await session.checkpoints()).toEqual(before.log);
    expect(wire(await session.messages())).toEqual(before.thread);
    expect(callId).not.toBe('no-such-call');
  });
});

describe('CORS (API.md §15)', () => {
  const origin = 'https://app.example';
  const preflight = (url: string, from: string) =>
    rawRequest(url, {
      method: 'OPTIONS',
      path: '/sessions/cors-x/runs',
      headers: {
        origin: from,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,last-event-id',
      },
    });
  const corsHeaders = (headers: Headers) =>
    [...headers.keys()].filter((name) => name.startsWith('access-control-'));

  it('answers a preflight from a listed origin 2xx, without authentication, naming the headers', async () => {
    server = await listen(serve(desk().workflow, { authenticate, cors: { origins: [origin] } }));
    const a = await preflight(server.url, origin);
    expect(a.status).toBeGreaterThanOrEqual(200);
    expect(a.status).toBeLessThan(300);
    expect(a.headers.get('access-control-allow-origin')).toBe(origin);
    const allowed = (a.headers.get('access-control-allow-headers') ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase());
    expect(allowed).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'last-event-id']),
    );
  });

  it('gives an origin that is not listed no CORS headers, on preflights and requests', async () => {
    server = await listen(serve(desk().workflow, { authenticate, cors: { origins: [origin] } }));
    const a = await preflight(server.url, 'https://evil.example');
    expect(corsHeaders(a.headers)).toEqual([]);
    const get = await rawRequest(server.url, {
      method: 'GET',
      path: '/sessions',
      headers: { origin: 'https://evil.example', authorization: `Bearer ${TOKENS.alice}` },
    });
    expect(corsHeaders(get.headers)).toEqual([]);
  });

  it('allows a listed origin on an actual request', async () => {
    server = await listen(serve(desk().workflow, { authenticate, cors: { origins: [origin] } }));
    const get = await rawRequest(server.url, {
      method: 'GET',
      path: '/sessions',
      headers: { origin, authorization: `Bearer ${TOKENS.alice}` },
    });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBe(origin);
  });

  it('gives no cross-origin access by default', async () => {
    server = await listen(serve(desk().workflow, { authenticate }));
    const a = await preflight(server.url, origin);
    expect(corsHeaders(a.headers)).toEqual([]);
  });
});
