// Independent suite for API.md §15 "Auth and tenants" and the check order, over real HTTP.
// Written from API.md alone. Readings where the page is open:
// - "for any other principal it does not exist (404 on every route)" includes `POST /chat` and
//   `POST /ag-ui` naming another principal's session id: 404, and that session is left untouched
//   (not "created on first use", not 409);
// - the order "authentication, route and method, body, ownership" means: no principal → 401 even
//   on an unknown route, a wrong method or a bad body; a wrong method → 405 even with a bad body;
//   a bad body on another principal's session → 400/413, not 404;
// - the page does not say what a cursor made for another principal gets: 400, or a page of the
//   caller's own sessions; either way none of the other principal's sessions.
import { afterEach, describe, expect, it, vi } from 'vitest';

import { serve } from '../../../src/index.js';
import {
  answer,
  authenticate,
  client,
  desk,
  errorOf,
  listen,
  type Server,
  wire,
} from './support.js';

let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const chatBody = (id: string) => ({
  id,
  messages: [{ id: 'u-1', role: 'user', parts: [{ type: 'text', text: 'hi from bob' }] }],
  trigger: 'submit-message',
});
const agUiBody = (threadId: string) => ({
  threadId,
  runId: 'run-1',
  messages: [{ id: 'm-1', role: 'user', content: 'hi from bob' }],
  tools: [],
  context: [],
  state: {},
  forwardedProps: {},
});

/** Every route of the table but /healthz, on session `id`. */
const routes = (id: string): [string, string, unknown?][] => [
  ['POST', '/sessions', { id: `${id}-new` }],
  ['GET', '/sessions'],
  ['GET', `/sessions/${id}`],
  ['GET', `/sessions/${id}/messages`],
  ['POST', `/sessions/${id}/runs`, { input: 'hi' }],
  ['GET', `/sessions/${id}/stream`],
  ['POST', `/sessions/${id}/stop`, {}],
  ['DELETE', `/sessions/${id}`],
  ['POST', '/chat', chatBody(id)],
  ['GET', `/chat/${id}/stream`],
  ['POST', '/ag-ui', agUiBody(id)],
];

describe('authentication (API.md §15)', () => {
  it('answers 401 with WWW-Authenticate: Bearer on every route but /healthz without a principal', async () => {
    server = await listen(serve(desk().workflow, { authenticate }));
    const nobody = client(server.url);
    const impostor = {
      ...client(server.url),
      raw: (method: string, path: string, body?: unknown) =>
        fetch(server!.url + path, {
          method,
          headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
    };
    for (const caller of [nobody, impostor]) {
      for (const [method, path, body] of routes('auth-x')) {
        const a = await answer(await caller.raw(method, path, body));
        expect(a.status, `${method} ${path}`).toBe(401);
        expect(a.headers.get('www-authenticate'), `${method} ${path}`).toMatch(/^Bearer\b/);
        errorOf(a);
      }
    }
    expect((await nobody.get('/healthz')).status).toBe(200);
  });

  it('with `token`: accepts exactly `Authorization: Bearer <token>` and never echoes a token', async () => {
    const token = 'tok-3f9a1c77e2';
    const logged: string[] = [];
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(' '));
      }),
    );
    server = await listen(serve(desk().workflow, { token }));
    const post = (authorization?: string) =>
      fetch(`${server!.url}/sessions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({ id: 'token-one' }),
      }).then(answer);
    for (const bad of [
      undefined,
      'Bearer wrong-token-xyz',
      `Basic ${token}`,
      `Bearer ${token}x`,
      token,
    ]) {
      const a = await post(bad);
      expect(a.status, String(bad)).toBe(401);
      expect(a.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      expect(a.text).not.toContain('wrong-token-xyz');
      expect(a.text).not.toContain(token);
      expect([...a.headers.values()].join('\n')).not.toContain(token);
    }
    const ok = await post(`Bearer ${token}`);
    expect(ok.status).toBe(201);
    expect(ok.json).toEqual({ id: 'token-one' });
    expect(ok.text).not.toContain(token);
    for (const spy of spies) spy.mockRestore();
    expect(
      logged.filter((line) => line.includes(token) || line.includes('wrong-token-xyz')),
    ).toEqual([]);
  });

  it('accepts an async authenticate', async () => {
    server = await listen(
      serve(desk().workflow, {
        authenticate: async (request: Request) => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          return authenticate(request);
        },
      }),
    );
    expect((await client(server.url).post('/sessions', { id: 'async-auth' })).status).toBe(401);
    expect((await client(server.url, 'alice').post('/sessions', { id: 'async-auth' })).status).toBe(
      201,
    );
    expect((await client(server.url, 'bob').get('/sessions/async-auth')).status).toBe(404);
  });

  it('passes the principal to a workflow factory `(principal) => workflow`', async () => {
    const seen: string[] = [];
    const made = { alice: desk(), bob: desk() };
    server = await listen(
      serve(
        (principal: { id: string }) => {
          seen.push(principal.id);
          return made[principal.id as 'alice' | 'bob'].workflow;
        },
        { authenticate },
      ),
    );
    const alice = client(server.url, 'alice');
    await alice.post('/sessions', { id: 'factory-a' });
    const run = await alice.post('/sessions/factory-a/runs', { input: 'hello' });
    expect(run.status).toBe(200);
    expect(seen).toContain('alice');
    expect(seen).not.toContain('bob');
    expect((await made.alice.workflow.session('factory-a').messages()).length).toBe(6);
    expect(await made.bob.workflow.session('factory-a').messages()).toEqual([]);
  });
});

describe('tenants (API.md §15)', () => {
  it("answers 404 (never 403) on every route for another principal's session, and touches nothing", async () => {
    const { workflow } = desk();
    server = await listen(serve(workflow, { authenticate }));
    const alice = client(server.url, 'alice');
    const bob = client(server.url, 'bob');
    await alice.post('/sessions', { id: 'tenant-a' });
    await alice.post('/sessions/tenant-a/runs', { input: 'hello' });
    const before = wire(await workflow.session('tenant-a').messages());
    const beforeInfo = wire(await workflow.session('tenant-a').info());

    for (const [method, path, body] of routes('tenant-a').filter(
      ([, p]) => p.includes('tenant-a') && !p.endsWith('-new'),
    )) {
      const a = await answer(await bob.raw(method, path, body));
      expect(a.status, `${method} ${path}`).toBe(404);
      errorOf(a);
    }
    expect(wire(await workflow.session('tenant-a').messages())).toEqual(before);
    expect(wire(await workflow.session('tenant-a').info())).toEqual(beforeInfo);
    expect((await alice.get('/sessions/tenant-a')).status).toBe(200);
  });

  it("never lists another principal's sessions", async () => {
    server = await listen(serve(desk().workflow, { authenticate }));
    const alice = client(server.url, 'alice');
    const bob = client(server.url, 'bob');
    await alice.post('/sessions', { id: 'tenant-list-a' });
    await alice.post('/sessions/tenant-list-a/runs', { input: 'hello' });
    await bob.post('/sessions', { id: 'tenant-list-b' });
    await bob.post('/sessions/tenant-list-b/runs', { input: 'hello' });
    const ids = (c: typeof alice) =>
      c
        .get('/sessions')
        .then((a) => (a.json as { sessions: { id: string }[] }).sessions.map((s) => s.id));
    expect(await ids(alice)).toEqual(['tenant-list-a']);
    expect(await ids(bob)).toEqual(['tenant-list-b']);
  });

  it("never lists another principal's sessions through a cursor of theirs", async () => {
    server = await listen(serve(desk().workflow, { authenticate }));
    const alice = client(server.url, 'alice');
    const bob = client(server.url, 'bob');
    for (const id of ['cursor-a1', 'cursor-a2', 'cursor-a3']) {
      await alice.post('/sessions', { id });
      await alice.post(`/sessions/${id}/runs`, { input: 'hello' });
    }
    await bob.post('/sessions', { id: 'cursor-b1' });
    await bob.post('/sessions/cursor-b1/runs', { input: 'hello' });
    const page = (await alice.get('/sessions?limit=1')).json as { cursor?: string };
    expect(typeof page.cursor).toBe('string');
    const theirs = await bob.get(`/sessions?limit=10&cursor=${encodeURIComponent(page.cursor!)}`);
    if (theirs.status === 200) {
      const ids = (theirs.json as { sessions: { id: string }[] }).sessions.map((s) => s.id);
      expect(ids.filter((id) => id.startsWith('cursor-a'))).toEqual([]);
    } else {
      expect(theirs.status).toBe(400);
      errorOf(theirs);
    }
  });

  it('answers 409 to POST /sessions with an id already taken, by anyone', async () => {
    server = await listen(serve(desk().workflow, { authenticate }));
    const alice = client(server.url, 'alice');
    const bob = client(server.url, 'bob');
    expect((await alice.post('/sessions', { id: 'tenant-taken' })).status).toBe(201);
    const mine = await alice.post('/sessions', { id: 'tenant-taken' });
    expect(mine.status).toBe(409);
    errorOf(mine);
    const theirs = await bob.post('/sessions', { id: 'tenant-taken' });
    expect(theirs.status).toBe(409);
    errorOf(theirs);
    expect((await bob.get('/sessions/tenant-taken')).status).toBe(404);
  });
});

describe('check order: authentication, route and method, body, ownership (API.md §15)', () => {
  it('authentication comes first: 401 on an unknown route, a wrong method, a bad or oversized body', async () => {
    server = await listen(serve(desk().workflow, { authenticate, maxBodyBytes: 64 }));
    const nobody = client(server.url);
    const cases: [string, string, string?][] = [
      ['GET', '/nope'],
      ['PUT', '/sessions'],
      ['POST', '/sessions', '{not json'],
      ['POST', '/sessions', JSON.stringify({ id: 'x'.repeat(200) })],
      ['POST', '/sessions/whatever/runs', '{"input": 5}'],
    ];
    for (const [method, path, body] of cases) {
      const a = await answer(await nobody.raw(method, path, body));
      expect(a.status, `${method} ${path} ${body}`).toBe(401);
    }
  });

  it('route and method come before the body: 404 / 405 with a malformed body', async () => {
    server = await listen(serve(desk().workflow, { authenticate }));
    const alice = client(server.url, 'alice');
    expect((await answer(await alice.raw('POST', '/nope', '{not json'))).status).toBe(404);
    expect((await answer(await alice.raw('PUT', '/sessions', '{not json'))).status).toBe(405);
  });

  it("the body comes before ownership: 400 / 413 on another principal's session", async () => {
    server = await listen(serve(desk().workflow, { authenticate, maxBodyBytes: 200 }));
    const alice = client(server.url, 'alice');
    const bob = client(server.url, 'bob');
    await alice.post('/sessions', { id: 'order-a' });
    const malformed = await answer(await bob.raw('POST', '/sessions/order-a/runs', '{not json'));
    expect(malformed.status).toBe(400);
    errorOf(malformed);
    const shape = await answer(await bob.raw('POST', '/sessions/order-a/runs', '{"input": 5}'));
    expect(shape.status).toBe(400);
    expect(errorOf(shape).message).toContain('input');
    const big = await answer(
      await bob.raw('POST', '/sessions/order-a/runs', JSON.stringify({ input: 'x'.repeat(500) })),
    );
    expect(big.status).toBe(413);
    errorOf(big);
    const fine = await answer(await bob.raw('POST', '/sessions/order-a/runs', '{"input": "hi"}'));
    expect(fine.status).toBe(404);
  });
});
