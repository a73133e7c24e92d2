import { afterEach, describe, expect, it } from 'vitest';

import { MemoryCheckpointStore, serve } from '../../src/index.js';
import type { Listening } from '../../src/serve/node-listen.js';
import { Gate, serveDesk } from '../support/serve-desk.js';
import { client, listen, OTHER, twoTenants } from './serve-http.js';

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const JSON_BODY = { 'content-type': 'application/json' };

/** Every route of API.md §15 that names a session, as a second principal would call it. */
const ROUTES_OF_A_SESSION: [
  method: string,
  path: (id: string) => string,
  body?: (id: string) => unknown,
][] = [
  ['GET', (id) => `/sessions/${id}`],
  ['GET', (id) => `/sessions/${id}/messages`],
  ['GET', (id) => `/sessions/${id}/messages?after=1`],
  ['POST', (id) => `/sessions/${id}/runs`, () => ({ input: 'hello' })],
  ['GET', (id) => `/sessions/${id}/stream`],
  ['POST', (id) => `/sessions/${id}/stop`],
  ['DELETE', (id) => `/sessions/${id}`],
  [
    'POST',
    () => '/chat',
    (id) => ({
      id,
      trigger: 'submit-message',
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    }),
  ],
  ['GET', (id) => `/chat/${id}/stream`],
  [
    'POST',
    () => '/ag-ui',
    (id) => ({ threadId: id, runId: 'r', messages: [{ id: 'u', role: 'user', content: 'hi' }] }),
  ],
];

describe('serve(): tenants', () => {
  for (const stored of [false, true]) {
    it(`a second principal gets 404 on every route of the first one's session, and never lists it (${stored ? 'store' : 'no store'})`, async () => {
      const desk = serveDesk(stored ? { store: new MemoryCheckpointStore() } : {});
      server = await listen(serve(desk.workflow, { authenticate: twoTenants }));
      const alice = client(server.url);
      const bob = client(server.url, OTHER);
      expect((await alice('POST', '/sessions', { id: 'mine' })).status).toBe(201);
      const run = await alice('POST', '/sessions/mine/runs', { input: 'hello' });
      expect(run.json.status).toBe('awaiting_input');
      const before = await alice('GET', '/sessions/mine/messages');

      const answers: string[] = [];
      for (const [method, path, body] of ROUTES_OF_A_SESSION) {
        const answer = await bob(
          method,
          path('mine'),
          body?.('mine'),
          body === undefined ? {} : JSON_BODY,
        );
        answers.push(`${method} ${path('mine')} ${answer.status} ${answer.json?.error?.code}`);
      }
      expect(answers).toEqual(
        ROUTES_OF_A_SESSION.map(([method, path]) => `${method} ${path('mine')} 404 not_found`),
      );
      // The id is taken: bob cannot create it either (409), and never sees it listed.
      expect((await bob('POST', '/sessions', { id: 'mine' })).status).toBe(409);
      expect((await bob('GET', '/sessions')).json).toEqual({ sessions: [] });
      expect((await bob('POST', '/sessions', { id: 'his' })).status).toBe(201);
      expect(
        (await bob('GET', '/sessions')).json.sessions.map((s: { id: string }) => s.id),
      ).toEqual(['his']);
      expect(
        (await alice('GET', '/sessions')).json.sessions.map((s: { id: string }) => s.id),
      ).toEqual(['mine']);
      // Nothing bob did touched alice's session.
      expect((await alice('GET', '/sessions/mine/messages')).json).toEqual(before.json);
      expect((await alice('GET', '/sessions/mine')).json).toMatchObject({
        status: 'awaiting_input',
      });
    });
  }

  it("pages through a principal's sessions newest first, exactly once each", async () => {
    const desk = serveDesk({ store: new MemoryCheckpointStore() });
    server = await listen(serve(desk.workflow, { authenticate: twoTenants }));
    const alice = client(server.url);
    for (let i = 0; i < 5; i++) {
      await alice('POST', '/sessions', { id: `p${i}` });
      await new Promise((r) => setTimeout(r, 2));
    }
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await alice(
        'GET',
        `/sessions?limit=2${cursor === undefined ? '' : `&cursor=${cursor}`}`,
      );
      ids.push(...page.json.sessions.map((s: { id: string }) => s.id));
      cursor = page.json.cursor;
    } while (cursor !== undefined);
    expect(ids).toEqual(['p4', 'p3', 'p2', 'p1', 'p0']);
  });

  it('a session deleted and made again by another principal changes hands in every process', async () => {
    const store = new MemoryCheckpointStore();
    server = await listen(serve(serveDesk({ store }).workflow, { authenticate: twoTenants }));
    const second = await listen(serve(serveDesk({ store }).workflow, { authenticate: twoTenants }));
    try {
      const [aliceHere, bobHere] = [client(server.url), client(server.url, OTHER)];
      const [aliceThere, bobThere] = [client(second.url), client(second.url, OTHER)];
      expect((await aliceHere('POST', '/sessions', { id: 'x' })).status).toBe(201);
      expect((await aliceThere('GET', '/sessions/x')).status).toBe(200);
      expect((await aliceHere('DELETE', '/sessions/x')).status).toBe(204);
      expect((await bobHere('POST', '/sessions', { id: 'x' })).status).toBe(201);
      expect((await aliceThere('GET', '/sessions/x')).status).toBe(404);
      expect((await bobThere('GET', '/sessions/x/messages')).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('a run of a session deleted in another process answers 404, and of one made again by another principal runs only for that principal, on its own thread', async () => {
    const store = new MemoryCheckpointStore();
    server = await listen(serve(serveDesk({ store }).workflow, { authenticate: twoTenants }));
    const second = await listen(serve(serveDesk({ store }).workflow, { authenticate: twoTenants }));
    try {
      const [aliceHere, bobHere] = [client(server.url), client(server.url, OTHER)];
      const [aliceThere, bobThere] = [client(second.url), client(second.url, OTHER)];
      expect((await aliceHere('POST', '/sessions', { id: 'y' })).status).toBe(201);
      // Two runs here: this process keeps the session, and where its log ends, in memory.
      expect((await aliceHere('POST', '/sessions/y/runs', { input: 'hello' })).status).toBe(200);
      expect((await aliceHere('POST', '/sessions/y/runs', { input: 'again' })).status).toBe(200);
      expect((await aliceThere('DELETE', '/sessions/y')).status).toBe(204);
      expect((await aliceHere('POST', '/sessions/y/runs', { input: 'gone?' })).status).toBe(404);
      expect((await bobThere('POST', '/sessions', { id: 'y' })).status).toBe(201);
      expect((await aliceHere('POST', '/sessions/y/runs', { input: 'mine?' })).status).toBe(404);
      const bobs = await bobHere('POST', '/sessions/y/runs', { input: 'hello' });
      expect([bobs.status, bobs.json.status]).toEqual([200, 'awaiting_input']);
      const thread = await bobThere('GET', '/sessions/y/messages');
      const texts = thread.json.messages
        .filter((m: { type: string }) => m.type === 'TextMessage')
        .map((m: { source: string; content: string }) => `${m.source}: ${m.content}`);
      expect(texts).toEqual(['user: hello', 'triage: How can I help?']);
      // Nothing of the refused runs was kept: the session is bob's, at the step his run made.
      expect((await bobHere('GET', '/sessions/y')).json.step).toBe(
        (await bobThere('GET', '/sessions/y')).json.step,
      );
    } finally {
      await second.close();
    }
  });

  it("a session deleted and made again by another principal, as long as before, holds none of the first one's conversation in any process", async () => {
    const store = new MemoryCheckpointStore();
    server = await listen(serve(serveDesk({ store }).workflow, { authenticate: twoTenants }));
    const second = await listen(serve(serveDesk({ store }).workflow, { authenticate: twoTenants }));
    try {
      const [aliceHere, bobHere] = [client(server.url), client(server.url, OTHER)];
      const [aliceThere, bobThere] = [client(second.url), client(second.url, OTHER)];
      expect((await aliceHere('POST', '/sessions', { id: 'v' })).status).toBe(201);
      expect((await aliceHere('POST', '/sessions/v/runs', { input: 'alice secret' })).status).toBe(
        200,
      );
      const step = (await aliceHere('GET', '/sessions/v')).json.step as number;
      expect((await aliceThere('DELETE', '/sessions/v')).status).toBe(204);
      expect((await bobThere('POST', '/sessions', { id: 'v' })).status).toBe(201);
      // Bob's log reaches the step this process last knew of alice's.
      for (let turn = 1; (await bobThere('GET', '/sessions/v')).json.step < step; turn++) {
        expect((await bobThere('POST', '/sessions/v/runs', { input: `bob ${turn}` })).status).toBe(
          200,
        );
      }
      expect((await bobThere('GET', '/sessions/v')).json.step).toBe(step);
      expect((await bobHere('POST', '/sessions/v/runs', { input: 'bob here' })).status).toBe(200);
      const here = (await bobHere('GET', '/sessions/v/messages')).json.messages;
      const there = (await bobThere('GET', '/sessions/v/messages')).json.messages;
      expect(JSON.stringify(here)).not.toContain('alice secret');
      expect(here).toEqual(there);
    } finally {
      await second.close();
    }
  });

  it("another principal's input to a running session answers 404, not 409, in the process running it and in another", async () => {
    const store = new MemoryCheckpointStore();
    const gate = new Gate();
    server = await listen(serve(serveDesk({ store, gate }).workflow, { authenticate: twoTenants }));
    const second = await listen(serve(serveDesk({ store }).workflow, { authenticate: twoTenants }));
    try {
      const [alice, bobHere] = [client(server.url), client(server.url, OTHER)];
      const [aliceThere, bobThere] = [client(second.url), client(second.url, OTHER)];
      expect((await alice('POST', '/sessions', { id: 'z' })).status).toBe(201);
      const run = alice('POST', '/sessions/z/runs', { input: 'slow hello' });
      while (gate.waiting === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await bobHere('POST', '/sessions/z/runs', { input: 'hi' })).status).toBe(404);
      expect((await bobThere('POST', '/sessions/z/runs', { input: 'hi' })).status).toBe(404);
      expect((await bobHere('POST', '/sessions/missing/runs', { input: 'hi' })).status).toBe(404);
      expect((await alice('POST', '/sessions/z/runs', { input: 'hi' })).status).toBe(409);
      expect((await aliceThere('POST', '/sessions/z/runs', { input: 'hi' })).status).toBe(409);
      gate.open();
      expect((await run).status).toBe(200);
      expect((await aliceThere('POST', '/sessions/z/runs', { input: 'hi' })).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('a stop asked in another process while the session is idle stops its next run at its input, once', async () => {
    const store = new MemoryCheckpointStore();
    server = await listen(serve(serveDesk({ store }).workflow, { authenticate: twoTenants }));
    const second = await listen(serve(serveDesk({ store }).workflow, { authenticate: twoTenants }));
    try {
      const [here, there] = [client(server.url), client(second.url)];
      expect((await here('POST', '/sessions', { id: 's' })).status).toBe(201);
      expect((await here('POST', '/sessions/s/runs', { input: 'hello' })).status).toBe(200);
      expect((await there('POST', '/sessions/s/stop')).status).toBe(202);
      const stopped = await here('POST', '/sessions/s/runs', { input: 'again' });
      expect([stopped.status, stopped.json.status, stopped.json.stopReason]).toEqual([
        200,
        'terminated',
        'External termination requested',
      ]);
      const next = await here('POST', '/sessions/s/runs', { input: 'and again' });
      expect([next.status, next.json.status]).toEqual([200, 'awaiting_input']);
    } finally {
      await second.close();
    }
  });

  it('serves a workflow per principal with serve((principal) => workflow)', async () => {
    const desks = new Map([
      ['alice', serveDesk().workflow],
      ['bob', serveDesk().workflow],
    ]);
    server = await listen(
      serve((principal) => desks.get(principal.id) as never, { authenticate: twoTenants }),
    );
    const [alice, bob] = [client(server.url), client(server.url, OTHER)];
    expect((await alice('POST', '/sessions', { id: 'same' })).status).toBe(201);
    expect((await bob('POST', '/sessions', { id: 'same' })).status).toBe(201);
    expect((await alice('POST', '/sessions/same/runs', { input: 'hello' })).json.status).toBe(
      'awaiting_input',
    );
    expect((await bob('GET', '/sessions/same')).json).toEqual({ status: 'idle', step: 0 });
    desks.delete('bob');
    expect(await bob('GET', '/sessions')).toMatchObject({
      status: 500,
      json: { error: { code: 'internal' } },
    });
  });
});
