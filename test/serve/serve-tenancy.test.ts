import { afterEach, describe, expect, it } from 'vitest';

import { MemoryCheckpointStore, serve } from '../../src/index.js';
import type { Listening } from '../../src/serve/node-listen.js';
import { serveDesk } from '../support/serve-desk.js';
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
