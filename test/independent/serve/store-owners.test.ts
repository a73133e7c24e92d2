// Independent suite for API.md §21 owners as §15 sets them, and §15 tenancy across processes that
// share a store, on all four stores. Written from API.md alone. Readings where the page is open:
// - "Without a store, sessions and owners live in the process" implies that with a store they
//   live in the store: a second `serve` over another workflow object on the same store (another
//   process) knows every session's owner, including a session created by `POST /sessions` and
//   not yet run, and answers 409 to that id;
// - `DELETE /sessions/:id` leaves nothing of the session in the store (§21: no log, no list entry).
import { afterEach, describe, expect, it } from 'vitest';

import { serve } from '../../../src/index.js';
import { openFile, openMemory, openPostgres, openRedis } from '../../support/store-fixtures.js';
import { allEvents, authenticate, client, desk, Gate, listen, type Server } from './support.js';

type Fixture = NonNullable<Awaited<ReturnType<typeof openMemory>>>;
const stores = { memory: openMemory, file: openFile, postgres: openPostgres, redis: openRedis };

let fixture: Fixture | undefined;
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  await fixture?.close();
  fixture = undefined;
});

const prefix = () => `own-${Math.random().toString(36).slice(2, 8)}`;

for (const [name, open] of Object.entries(stores)) {
  describe(`${name} store: owners set by serve (API.md §21, §15)`, () => {
    async function setup(ctx: { skip: (note: string) => void }) {
      fixture = await open();
      if (fixture === undefined) {
        ctx.skip(`${name} is not reachable`);
        throw new Error('unreachable');
      }
      const one = await listen(serve(desk({ store: fixture.a }).workflow, { authenticate }));
      const two = await listen(serve(desk({ store: fixture.b }).workflow, { authenticate }));
      servers.push(one, two);
      return { ...fixture, one, two };
    }

    it("records Principal.id as the owner; list({owner}) gives each principal's sessions", async (ctx) => {
      const { a, one } = await setup(ctx);
      const p = prefix();
      const alice = client(one.url, 'alice');
      const bob = client(one.url, 'bob');
      await alice.post('/sessions', { id: `${p}-a` });
      await alice.post(`/sessions/${p}-a/runs`, { input: 'hello' });
      await bob.post('/sessions', { id: `${p}-b` });
      await bob.post(`/sessions/${p}-b/runs`, { input: 'hello' });
      const mine = await a.list({ owner: 'alice' });
      expect(mine.sessions.map((s) => [s.id, s.owner])).toEqual([[`${p}-a`, 'alice']]);
      const theirs = await a.list({ owner: 'bob' });
      expect(theirs.sessions.map((s) => [s.id, s.owner])).toEqual([[`${p}-b`, 'bob']]);
      expect((await a.list({ owner: 'carol' })).sessions).toEqual([]);
      expect((await a.list()).sessions.map((s) => s.owner).sort()).toEqual(['alice', 'bob']);
    });

    it('another process on the store knows the owner: 200 for it, 404 for others, 409 on the id', async (ctx) => {
      const { one, two } = await setup(ctx);
      const p = prefix();
      await client(one.url, 'alice').post('/sessions', { id: `${p}-ran` });
      await client(one.url, 'alice').post(`/sessions/${p}-ran/runs`, { input: 'hello' });
      await client(one.url, 'alice').post('/sessions', { id: `${p}-new` });
      const alice = client(two.url, 'alice');
      const bob = client(two.url, 'bob');
      for (const id of [`${p}-ran`, `${p}-new`]) {
        expect((await alice.get(`/sessions/${id}`)).status, id).toBe(200);
        expect((await bob.get(`/sessions/${id}`)).status, id).toBe(404);
        expect((await bob.post('/sessions', { id })).status, id).toBe(409);
      }
      const listed = (await alice.get('/sessions')).json as { sessions: { id: string }[] };
      expect(listed.sessions.map((s) => s.id)).toContain(`${p}-ran`);
      expect(((await bob.get('/sessions')).json as { sessions: unknown[] }).sessions).toEqual([]);
      const run = await alice.post(`/sessions/${p}-ran/runs`, { input: 'again' });
      expect(run.status).toBe(200);
      expect((run.json as { pendingRequest: { prompt: string } }).pendingRequest.prompt).toBe(
        'Billing: again',
      );
    });

    it('DELETE /sessions/:id leaves nothing of the session in the store', async (ctx) => {
      const { a, one, two } = await setup(ctx);
      const p = prefix();
      const alice = client(one.url, 'alice');
      await alice.post('/sessions', { id: `${p}-del` });
      await alice.post(`/sessions/${p}-del/runs`, { input: 'hello' });
      expect(await a.read(`${p}-del`)).not.toEqual([]);
      expect((await alice.del(`/sessions/${p}-del`)).status).toBe(204);
      expect(await a.read(`${p}-del`)).toEqual([]);
      expect(await a.leaseHolder(`${p}-del`)).toBeNull();
      expect((await a.list()).sessions.map((s) => s.id)).not.toContain(`${p}-del`);
      expect((await client(two.url, 'alice').get(`/sessions/${p}-del`)).status).toBe(404);
      expect((await client(two.url, 'bob').post('/sessions', { id: `${p}-del` })).status).toBe(201);
      // The former owner, in the process that knew it as theirs, no longer sees it.
      expect((await alice.get(`/sessions/${p}-del`)).status).toBe(404);
      expect((await client(one.url, 'bob').get(`/sessions/${p}-del`)).status).toBe(200);
    });

    it('lists a session created and not yet run, in both processes', async (ctx) => {
      const { one, two } = await setup(ctx);
      const p = prefix();
      expect((await client(one.url, 'alice').post('/sessions', { id: `${p}-fresh` })).status).toBe(
        201,
      );
      for (const server of [one, two]) {
        const listed = (await client(server.url, 'alice').get('/sessions')).json as {
          sessions: { id: string; status: string; step: number }[];
        };
        expect(listed.sessions.map((s) => [s.id, s.status])).toEqual([[`${p}-fresh`, 'idle']]);
      }
    });

    it('sessions removed by deleteOlderThan are gone for their owner and free to take', async (ctx) => {
      const { a, one, two } = await setup(ctx);
      const p = prefix();
      const alice = client(one.url, 'alice');
      await alice.post('/sessions', { id: `${p}-old-ran` });
      await alice.post(`/sessions/${p}-old-ran/runs`, { input: 'hello' });
      await alice.post('/sessions', { id: `${p}-old-new` });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await a.deleteOlderThan(new Date(Date.now() + 1));
      for (const id of [`${p}-old-ran`, `${p}-old-new`]) {
        expect((await alice.get(`/sessions/${id}`)).status, id).toBe(404);
        expect((await client(two.url, 'bob').post('/sessions', { id })).status, id).toBe(201);
        expect((await client(one.url, 'bob').get(`/sessions/${id}`)).status, id).toBe(200);
      }
    });

    it('two processes creating one id at once: exactly one 201, the other 409', async (ctx) => {
      const { one, two } = await setup(ctx);
      const p = prefix();
      for (let i = 0; i < 5; i++) {
        const id = `${p}-race-${i}`;
        const answers = await Promise.all([
          client(one.url, 'alice').post('/sessions', { id }),
          client(two.url, 'bob').post('/sessions', { id }),
        ]);
        expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
        const winner = answers[0]!.status === 201 ? 'alice' : 'bob';
        const loser = winner === 'alice' ? 'bob' : 'alice';
        expect((await client(two.url, winner).get(`/sessions/${id}`)).status).toBe(200);
        expect((await client(one.url, loser).get(`/sessions/${id}`)).status).toBe(404);
      }
    });

    it('GET /stream in another process follows the live run to its pause, then 204', async (ctx) => {
      fixture = await open();
      if (fixture === undefined) {
        ctx.skip(`${name} is not reachable`);
        return;
      }
      const gate = new Gate();
      const one = await listen(serve(desk({ store: fixture.a, gate }).workflow, { authenticate }));
      const two = await listen(serve(desk({ store: fixture.b }).workflow, { authenticate }));
      servers.push(one, two);
      const p = prefix();
      const alice = client(one.url, 'alice');
      await alice.post('/sessions', { id: `${p}-follow` });
      const running = alice.post(`/sessions/${p}-follow/runs`, { input: 'slow hello' });
      await gate.started;
      const response = await fetch(`${two.url}/sessions/${p}-follow/stream`, {
        headers: { ...client(two.url, 'alice').auth, accept: 'text/event-stream' },
      });
      expect(response.status).toBe(200);
      const reading = allEvents(response);
      gate.open();
      const events = await reading;
      const result = (await running).json as { messages: unknown[] };
      expect(
        events
          .filter((e) => e.event !== 'result' && e.event !== 'ModelClientStreamingChunkEvent')
          .map((e) => JSON.parse(e.data) as unknown),
      ).toEqual(result.messages);
      const last = events.at(-1)!.id;
      const after = await fetch(`${two.url}/sessions/${p}-follow/stream`, {
        headers: { ...client(two.url, 'alice').auth, 'last-event-id': last! },
      });
      expect(after.status).toBe(204);
    });

    it('a run in one process makes input and DELETE in another answer 409', async (ctx) => {
      fixture = await open();
      if (fixture === undefined) {
        ctx.skip(`${name} is not reachable`);
        return;
      }
      const gate = new Gate();
      const one = await listen(serve(desk({ store: fixture.a, gate }).workflow, { authenticate }));
      const two = await listen(serve(desk({ store: fixture.b }).workflow, { authenticate }));
      servers.push(one, two);
      const p = prefix();
      const alice = client(one.url, 'alice');
      await alice.post('/sessions', { id: `${p}-busy` });
      const running = alice.post(`/sessions/${p}-busy/runs`, { input: 'slow hello' });
      await gate.started;
      const elsewhere = client(two.url, 'alice');
      const input = await elsewhere.post(`/sessions/${p}-busy/runs`, { input: 'second' });
      expect(input.status).toBe(409);
      expect(input.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await elsewhere.del(`/sessions/${p}-busy`)).status).toBe(409);
      gate.open();
      const result = (await running).json as { status: string; messages: unknown[] };
      expect(result.status).toBe('awaiting_input');
      const thread = (await elsewhere.get(`/sessions/${p}-busy/messages`)).json as {
        messages: unknown[];
      };
      expect(thread.messages).toEqual(result.messages);
    });
  });
}
