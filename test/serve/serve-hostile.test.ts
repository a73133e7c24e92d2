import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MemoryCheckpointStore, serve } from '../../src/index.js';
import type { Listening } from '../../src/serve/node-listen.js';
import { Gate, serveDesk } from '../support/serve-desk.js';
import { client, listen, TOKEN } from './serve-http.js';

const ORIGIN = 'https://desk.example';
const gate = new Gate();
const desk = serveDesk({ store: new MemoryCheckpointStore(), gate });
let server: Listening;
let call: ReturnType<typeof client>;
let approvalCall = '';

beforeAll(async () => {
  server = await listen(
    serve(desk.workflow, { token: TOKEN, cors: { origins: [ORIGIN] }, maxBodyBytes: 2000 }),
  );
  call = client(server.url);
  gate.open();
  await call('POST', '/sessions', { id: 'h1' });
  const paused = await call('POST', '/sessions/h1/runs', { input: 'I want a refund' });
  approvalCall = paused.json.pendingRequest.calls[0].id;
});
afterAll(async () => {
  await server.close();
});

const raw = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, init);
const auth = { authorization: `Bearer ${TOKEN}` };
const big = 'x'.repeat(3000);

/** [what, request, status, error code, the error message contains] */
const TABLE: [string, () => Promise<Response>, number, string | null, string?][] = [
  ['no token', () => raw('/sessions'), 401, 'unauthorized'],
  [
    'wrong token',
    () => raw('/sessions', { headers: { authorization: 'Bearer nope-secret' } }),
    401,
    'unauthorized',
  ],
  [
    'a token in another scheme',
    () => raw('/sessions', { headers: { authorization: `Basic ${TOKEN}` } }),
    401,
    'unauthorized',
  ],
  [
    'unknown route without a token: authentication first',
    () => raw('/nowhere'),
    401,
    'unauthorized',
  ],
  ['unknown route', () => raw('/nowhere', { headers: auth }), 404, 'not_found'],
  [
    'wrong method',
    () => raw('/sessions', { method: 'PUT', headers: auth }),
    405,
    'method_not_allowed',
  ],
  [
    'wrong method on a session',
    () => raw('/sessions/h1/runs', { headers: auth }),
    405,
    'method_not_allowed',
  ],
  [
    'oversized body',
    () => raw('/sessions', { method: 'POST', headers: auth, body: JSON.stringify({ id: big }) }),
    413,
    'payload_too_large',
  ],
  [
    'oversized body without Content-Length',
    () =>
      raw('/sessions/h1/runs', {
        method: 'POST',
        headers: auth,
        duplex: 'half',
        body: new ReadableStream({
          start(c) {
            for (let i = 0; i < 5; i++) c.enqueue(new TextEncoder().encode(`"${'y'.repeat(600)}"`));
            c.close();
          },
        }),
      } as RequestInit),
    413,
    'payload_too_large',
  ],
  [
    'malformed JSON',
    () => raw('/sessions', { method: 'POST', headers: auth, body: '{"id": ' }),
    400,
    'bad_request',
    'body: not valid JSON',
  ],
  [
    'an id of the wrong type',
    () => raw('/sessions', { method: 'POST', headers: auth, body: '{"id": 7}' }),
    400,
    'bad_request',
    'body.id',
  ],
  [
    'input of the wrong shape',
    () => raw('/sessions/h1/runs', { method: 'POST', headers: auth, body: '{"input": 5}' }),
    400,
    'bad_request',
    'body.input',
  ],
  [
    'a decision without approve',
    () =>
      raw('/sessions/h1/runs', {
        method: 'POST',
        headers: auth,
        body: `{"decisions":[{"callId":"${'x'}"}]}`,
      }),
    400,
    'bad_request',
    'body.decisions[0].approve',
  ],
  [
    'body checked before ownership',
    () => raw('/sessions/not-mine/runs', { method: 'POST', headers: auth, body: '{"input": 5}' }),
    400,
    'bad_request',
    'body.input',
  ],
  [
    'unknown session',
    () =>
      raw('/sessions/not-mine/runs', { method: 'POST', headers: auth, body: '{"input": "hi"}' }),
    404,
    'not_found',
  ],
  [
    'unknown callId',
    () =>
      raw('/sessions/h1/runs', {
        method: 'POST',
        headers: auth,
        body: '{"decisions":[{"callId":"nope","approve":true}]}',
      }),
    400,
    'unknown_call',
    'body.decisions[0].callId',
  ],
  [
    'a chat body without messages',
    () => raw('/chat', { method: 'POST', headers: auth, body: '{"id":"h1"}' }),
    400,
    'bad_request',
    'body.messages',
  ],
  [
    'an AG-UI body without threadId',
    () => raw('/ag-ui', { method: 'POST', headers: auth, body: '{"runId":"r","messages":[]}' }),
    400,
    'bad_request',
    'body.threadId',
  ],
  ['a bad limit', () => raw('/sessions?limit=abc', { headers: auth }), 400, 'bad_request', 'limit'],
  [
    'a bad list cursor',
    () => raw('/sessions?cursor=abc', { headers: auth }),
    400,
    'bad_request',
    'cursor',
  ],
  [
    'a bad Last-Event-ID',
    () => raw('/sessions/h1/stream', { headers: { ...auth, 'last-event-id': 'x' } }),
    400,
    'bad_request',
    'last-event-id',
  ],
  [
    'a bad after',
    () => raw('/sessions/h1/messages?after=-1', { headers: auth }),
    400,
    'bad_request',
    'after',
  ],
  ['healthz needs no token', () => raw('/healthz'), 200, null],
];

describe('serve(): hostile input', () => {
  for (const [what, request, status, code, contains] of TABLE) {
    it(`${what}: ${status}`, async () => {
      const response = await request();
      const body = (await response.json()) as { error?: { code: string; message: string } };
      expect([response.status, body.error?.code ?? null]).toEqual([status, code]);
      if (contains !== undefined) expect(body.error?.message).toContain(contains);
      if (status === 401) {
        expect(response.headers.get('www-authenticate')).toBe('Bearer');
        expect(JSON.stringify(body)).not.toContain('nope-secret');
        expect(JSON.stringify(body)).not.toContain(TOKEN);
      }
    });
  }

  it('commits nothing for any of them: the session still resumes with the real decision', async () => {
    const info = await call('GET', '/sessions/h1');
    expect(info.json).toMatchObject({
      status: 'awaiting_input',
      step: 4,
      pendingRequest: { kind: 'approval' },
    });
    const done = await call('POST', '/sessions/h1/runs', {
      decisions: [{ callId: approvalCall, approve: false, reason: 'not today' }],
    });
    expect(done.json).toMatchObject({
      status: 'awaiting_input',
      pendingRequest: { prompt: 'No refund then.' },
    });
    expect(desk.refunds).toEqual([]);
  });

  it('CORS: a listed origin is answered; a foreign one gets no CORS headers', async () => {
    const preflight = await raw('/sessions', {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toBe(
      'authorization, content-type, last-event-id',
    );
    const listed = await raw('/sessions', { headers: { ...auth, origin: ORIGIN } });
    expect([listed.status, listed.headers.get('access-control-allow-origin')]).toEqual([
      200,
      ORIGIN,
    ]);
    const foreign = await raw('/sessions', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    const foreignGet = await raw('/sessions', {
      headers: { ...auth, origin: 'https://evil.example' },
    });
    for (const answer of [foreign, foreignGet]) {
      expect([...answer.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('a client that disconnects mid-stream does not stop the run; the session resumes after', async () => {
    gate.close();
    await call('POST', '/sessions', { id: 'h2' });
    const leaving = new AbortController();
    const response = await raw('/sessions/h2/runs', {
      method: 'POST',
      headers: { ...auth, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'slow hello' }),
      signal: leaving.signal,
    });
    const reader = response.body?.getReader();
    const first = new TextDecoder().decode((await reader?.read())?.value);
    expect(first).toContain('event: TextMessage');
    leaving.abort();
    await new Promise((r) => setTimeout(r, 50));
    gate.open();
    let info = await call('GET', '/sessions/h2');
    for (let i = 0; i < 400 && info.json.status === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      info = await call('GET', '/sessions/h2');
    }
    expect(info.json).toMatchObject({
      status: 'awaiting_input',
      pendingRequest: { prompt: 'How can I help?' },
    });
    const next = await call('POST', '/sessions/h2/runs', { input: 'I want a refund' });
    expect(next.json).toMatchObject({
      status: 'awaiting_input',
      pendingRequest: { kind: 'approval' },
    });
  });
});
