import { afterEach, describe, expect, it } from 'vitest';

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { FileCheckpointStore, MemoryCheckpointStore, serve } from '../../src/index.js';
import type { Listening } from '../../src/serve/node-listen.js';
import { Gate, HELLO_TURN, serveDesk } from '../support/serve-desk.js';
import { client, listen, parseSse, twoTenants } from './serve-http.js';

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SSE = { accept: 'text/event-stream' };
const until = async (check: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 2000 && !(await check()); i++) await new Promise((r) => setTimeout(r, 5));
};

describe('serve(): the plain routes', () => {
  for (const stored of [false, true]) {
    const label = stored ? 'memory store' : 'no store';
    it(`creates, runs, approves, reads and deletes a session (${label})`, async () => {
      const desk = serveDesk(stored ? { store: new MemoryCheckpointStore() } : {});
      server = await listen(serve(desk.workflow, { authenticate: twoTenants }));
      const call = client(server.url);
      expect(await call('POST', '/sessions', { id: 's1' })).toMatchObject({
        status: 201,
        json: { id: 's1' },
      });
      const base = stored ? 1 : 0; // with a store, creating the session commits its first step
      const first = await call('POST', '/sessions/s1/runs', { input: 'hello' });
      expect(first.status).toBe(200);
      expect(first.json).toMatchObject({
        type: 'TaskResult',
        status: 'awaiting_input',
        sessionId: 's1',
        stopReason: null,
      });
      expect(first.json.messages.map((m: { type: string }) => m.type)).toEqual([
        'TextMessage',
        'TextMessage',
        'UserInputRequestedEvent',
      ]);

      const sse = await call('POST', '/sessions/s1/runs', { input: 'I want a refund' }, SSE);
      expect(sse.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const events = parseSse(sse.text);
      const s = (n: number) => base + n;
      expect(events.map((e) => `${e.id} ${e.event}`)).toEqual([
        `${s(3)}.1 TextMessage`,
        `${s(4)}.1 ToolCallRequestEvent`,
        `${s(4)}.2 ToolCallExecutionEvent`,
        `${s(4)}.3 HandoffMessage`,
        `${s(5)}.1 ToolCallRequestEvent`,
        `${s(5)}.2 ToolApprovalRequestEvent`,
        `${s(5)}.3 result`,
      ]);
      const result = JSON.parse(events.at(-1)?.data ?? '');
      expect(result.pendingRequest).toMatchObject({
        kind: 'approval',
        agent: 'billing',
        calls: [{ name: 'refund' }],
      });
      const callId = result.pendingRequest.calls[0].id as string;

      const info = await call('GET', '/sessions/s1');
      expect(info).toMatchObject({
        status: 200,
        json: { status: 'awaiting_input', step: s(5), pendingRequest: { kind: 'approval' } },
      });

      const decided = await call('POST', '/sessions/s1/runs', {
        decisions: [{ callId, approve: true }],
      });
      expect(decided.json).toMatchObject({
        status: 'awaiting_input',
        pendingRequest: { kind: 'input', agent: 'billing', prompt: 'Your refund is done.' },
      });
      expect(desk.refunds).toEqual([`42@${callId}`]);

      const all = await call('GET', '/sessions/s1/messages');
      const after = await call('GET', `/sessions/s1/messages?after=${s(5)}`);
      expect(after.json.messages.map((m: { type: string }) => m.type)).toEqual([
        'ToolApprovalResponseEvent',
        'ToolCallExecutionEvent',
        'TextMessage',
        'UserInputRequestedEvent',
      ]);
      expect(all.json.messages.slice(-4)).toEqual(after.json.messages);

      const list = await call('GET', '/sessions');
      expect(list.json).toEqual({
        sessions: [
          {
            id: 's1',
            status: 'awaiting_input',
            step: expect.any(Number),
            updatedAt: expect.any(String),
          },
        ],
      });

      expect((await call('DELETE', '/sessions/s1')).status).toBe(204);
      expect((await call('GET', '/sessions/s1')).status).toBe(404);
      expect((await call('GET', '/sessions')).json).toEqual({ sessions: [] });
    });
  }

  const stores = {
    MemoryCheckpointStore: () => new MemoryCheckpointStore(),
    FileCheckpointStore: () => new FileCheckpointStore(mkdtempSync(join(tmpdir(), 'baton-serve-'))),
  };
  it.for(Object.keys(stores) as (keyof typeof stores)[])(
    'reconnects late with Last-Event-ID: nothing missed, nothing repeated; 204 when nothing follows (%s)',
    async (name) => {
      const desk = serveDesk({ store: stores[name]() });
      server = await listen(serve(desk.workflow, { authenticate: twoTenants }));
      const call = client(server.url);
      await call('POST', '/sessions', { id: 'r1' });
      const whole = parseSse(
        (await call('POST', '/sessions/r1/runs', { input: 'I want a refund' }, SSE)).text,
      );
      // Every prefix: reconnecting after event i gives exactly the events after it.
      for (let i = 0; i < whole.length; i++) {
        const again = await call('GET', '/sessions/r1/stream', undefined, {
          ...SSE,
          'last-event-id': whole[i]?.id ?? '',
        });
        if (i === whole.length - 1) {
          expect(again.status).toBe(204);
          continue;
        }
        expect(parseSse(again.text).map((e) => `${e.id} ${e.event}`)).toEqual(
          whole.slice(i + 1).map((e) => `${e.id} ${e.event}`),
        );
      }
      // From the start of the log (cursor 0.0): the first run up to its pause.
      const fromStart = parseSse(
        (await call('GET', '/sessions/r1/stream', undefined, { 'last-event-id': '0.0' })).text,
      );
      expect(fromStart).toEqual(whole);
      // No cursor and nothing running: 204.
      expect((await call('GET', '/sessions/r1/stream')).status).toBe(204);
    },
  );

  it('follows a live run from its start, chunks included, and a disconnect does not stop it', async () => {
    const gate = new Gate();
    const desk = serveDesk({ store: new MemoryCheckpointStore(), gate });
    server = await listen(serve(desk.workflow, { authenticate: twoTenants }));
    const call = client(server.url);
    await call('POST', '/sessions', { id: 'live' });
    const running = call('POST', '/sessions/live/runs', { input: 'slow hello' });
    await until(() => gate.waiting === 1);
    expect((await call('GET', '/sessions/live')).json.status).toBe('running');
    // A client that leaves mid-stream.
    const leaving = new AbortController();
    const response = await fetch(`${server.url}/sessions/live/stream`, {
      headers: { authorization: 'Bearer test-token-1' },
      signal: leaving.signal,
    });
    const reader = response.body?.getReader();
    const firstBytes = await reader?.read();
    expect(new TextDecoder().decode(firstBytes?.value)).toContain('id: 2.1\nevent: TextMessage');
    leaving.abort();
    const following = await fetch(`${server.url}/sessions/live/stream`, {
      headers: { authorization: 'Bearer test-token-1' },
    });
    const rest = following.body?.getReader();
    const head = new TextDecoder().decode((await rest?.read())?.value);
    gate.open();
    const done = await running;
    expect(done.json.status).toBe('awaiting_input');
    let text = head;
    for (let r = await rest?.read(); r !== undefined && r.done !== true; r = await rest?.read()) {
      text += new TextDecoder().decode(r.value);
    }
    const followed = parseSse(text);
    expect(followed.map((e) => `${e.id} ${e.event}`)).toEqual(HELLO_TURN);
  });

  it('busy: "reject" answers 409 with Retry-After; stop answers 202 and stops the run', async () => {
    const gate = new Gate();
    const desk = serveDesk({ gate });
    server = await listen(serve(desk.workflow, { authenticate: twoTenants }));
    const call = client(server.url);
    await call('POST', '/sessions', { id: 'b1' });
    const running = call('POST', '/sessions/b1/runs', { input: 'slow hello' });
    await until(() => gate.waiting === 1);
    const busy = await call('POST', '/sessions/b1/runs', { input: 'again' });
    expect(busy.status).toBe(409);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(busy.json.error.code).toBe('session_busy');
    const chat = await call('POST', '/chat', {
      id: 'b1',
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    });
    const agUi = await call('POST', '/ag-ui', {
      threadId: 'b1',
      runId: 'r',
      messages: [{ id: 'u', role: 'user', content: 'hi' }],
    });
    for (const answer of [chat, agUi]) {
      expect([answer.status, answer.headers.get('retry-after'), answer.json.error.code]).toEqual([
        409,
        '1',
        'session_busy',
      ]);
    }
    const deleting = await call('DELETE', '/sessions/b1');
    expect(deleting.status).toBe(409);
    expect((await call('POST', '/sessions/b1/stop')).status).toBe(202);
    gate.open();
    expect((await running).json).toMatchObject({
      status: 'terminated',
      stopReason: 'External termination requested',
    });
  });

  it('busy: "interrupt" stops the running run and runs the new input; "enqueue" runs it after', async () => {
    for (const busy of ['interrupt', 'enqueue'] as const) {
      const gate = new Gate();
      const desk = serveDesk({ gate });
      server = await listen(serve(desk.workflow, { authenticate: twoTenants, busy }));
      const call = client(server.url);
      await call('POST', '/sessions', { id: 'q' });
      const first = call('POST', '/sessions/q/runs', { input: 'slow hello' });
      await until(() => gate.waiting === 1);
      const second = call('POST', '/sessions/q/runs', { input: 'hello again' });
      await new Promise((r) => setTimeout(r, 50));
      gate.open();
      const [a, b] = await Promise.all([first, second]);
      expect([busy, a.json.status, b.json.status]).toEqual(
        busy === 'interrupt'
          ? [busy, 'terminated', 'awaiting_input']
          : [busy, 'awaiting_input', 'awaiting_input'],
      );
      await server.close();
      server = undefined;
    }
  });
});
