// Independent suite for API.md §21 (session lifecycle in the stores) on all four stores, written
// from API.md alone; sessions are made through a team with `checkpointStore` (public API), the
// store is read through its own methods. Postgres and Redis tests skip when the server is down,
// unless BATON_REQUIRE_SERVICES=1 (then the fixture throws). Readings where the page is open:
// - `delete` of an id that has only a lease (no log) is not asserted; a session with a log and a
//   lease loses both;
// - "ties by id" is not exercised: the sessions of a test are committed at distinct milliseconds
//   (the test waits for the clock to move between runs — a wait, not a timing assertion);
// - "pages through every session exactly once even while sessions are added": every session that
//   existed when paging began appears exactly once, and no id appears twice;
// - a session made without `serve` has `owner` undefined in `list()`.
import { afterEach, describe, expect, it } from 'vitest';

import {
  Agent,
  type CheckpointStore,
  RoundRobinGroupChat,
  ScriptedChatClient,
  SessionBusyError,
} from '../../../src/index.js';
import { openFile, openMemory, openPostgres, openRedis } from '../../support/store-fixtures.js';

type Fixture = NonNullable<Awaited<ReturnType<typeof openMemory>>>;
const stores = { memory: openMemory, file: openFile, postgres: openPostgres, redis: openRedis };

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

function team(store: CheckpointStore, gate?: { started: () => void; release: Promise<void> }) {
  let n = 0;
  const agent = new Agent({
    name: 'echo',
    client: new ScriptedChatClient(async () => {
      if (gate) {
        gate.started();
        await gate.release;
      }
      return { content: `echo ${++n}` };
    }),
  });
  return new RoundRobinGroupChat([agent], { maxTurns: 1, checkpointStore: store });
}

/** Waits until the wall clock has moved past `ms` (so the next commit is strictly later). */
async function after(ms: number) {
  while (Date.now() <= ms + 2) await new Promise((resolve) => setTimeout(resolve, 3));
}

const prefix = () => `life-${Math.random().toString(36).slice(2, 8)}`;

for (const [name, open] of Object.entries(stores)) {
  describe(`${name} store: delete, list, deleteOlderThan, session.delete (API.md §21)`, () => {
    async function setup(ctx: { skip: (note: string) => void }) {
      fixture = await open();
      if (fixture === undefined) {
        ctx.skip(`${name} is not reachable`);
        throw new Error('unreachable');
      }
      return fixture;
    }

    it('lists sessions newest first with {id, step, updatedAt} and no owner', async (ctx) => {
      const { a } = await setup(ctx);
      const p = prefix();
      const ids = [`${p}-1`, `${p}-2`, `${p}-3`];
      const workflow = team(a);
      for (const id of ids) {
        await workflow.session(id).run('go');
        await after(Date.now());
      }
      const page = await a.list();
      expect(page.cursor).toBeUndefined();
      expect(page.sessions.map((s) => s.id)).toEqual([...ids].reverse());
      for (const s of page.sessions) {
        expect(s.owner).toBeUndefined();
        expect(s.step).toBe((await workflow.session(s.id).info()).step);
        expect(new Date(s.updatedAt).toISOString()).toBe(s.updatedAt);
      }
      const times = page.sessions.map((s) => Date.parse(s.updatedAt));
      expect(times).toEqual([...times].sort((x, y) => y - x));
      expect(new Set(times).size).toBe(3);
    });

    it('pages through every session exactly once, even while sessions are added', async (ctx) => {
      const { a, b } = await setup(ctx);
      const p = prefix();
      const workflow = team(a);
      const original: string[] = [];
      for (let i = 1; i <= 5; i++) {
        original.push(`${p}-${i}`);
        await workflow.session(`${p}-${i}`).run('go');
        await after(Date.now());
      }
      const seen: string[] = [];
      let page = await b.list({ limit: 2 });
      seen.push(...page.sessions.map((s) => s.id));
      expect(page.sessions.map((s) => s.id)).toEqual([`${p}-5`, `${p}-4`]);
      let added = 0;
      while (page.cursor !== undefined) {
        if (added < 2) {
          await team(b).session(`${p}-new-${++added}`).run('go');
          await after(Date.now());
        }
        page = await b.list({ limit: 2, cursor: page.cursor });
        expect(page.sessions.length).toBeLessThanOrEqual(2);
        seen.push(...page.sessions.map((s) => s.id));
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((id) => original.includes(id))).toEqual([...original].reverse());
    });

    it('delete: true, then the id is a new, empty session with no log, lease or list entry', async (ctx) => {
      const { a, b } = await setup(ctx);
      const p = prefix();
      const workflow = team(a);
      await workflow.session(`${p}-keep`).run('go');
      await workflow.session(`${p}-gone`).run('go');
      const steps = (await workflow.session(`${p}-gone`).info()).step;
      expect(await a.read(`${p}-gone`)).not.toEqual([]);
      expect(await a.acquireLease(`${p}-gone`, 'someone', 60_000)).toBe(true);

      expect(await b.delete(`${p}-gone`)).toBe(true);
      expect(await a.read(`${p}-gone`)).toEqual([]);
      expect(await b.read(`${p}-gone`)).toEqual([]);
      expect(await a.leaseHolder(`${p}-gone`)).toBeNull();
      expect((await a.list()).sessions.map((s) => s.id)).toEqual([`${p}-keep`]);
      expect(await b.delete(`${p}-gone`)).toBe(false);
      expect(await b.delete(`${p}-never`)).toBe(false);

      const fresh = team(b).session(`${p}-gone`);
      expect(await fresh.messages()).toEqual([]);
      expect(await fresh.checkpoints()).toEqual([]);
      expect((await fresh.info()).status).toBe('idle');
      const again = await fresh.run('again');
      expect(again.messages.map((m) => ('content' in m ? m.content : m.type))).toEqual([
        'again',
        'echo 1',
      ]);
      expect((await fresh.info()).step).toBe(steps);
      expect((await fresh.messages()).length).toBe(2);
      expect(await a.read(`${p}-keep`)).not.toEqual([]);
    });

    it('deleteOlderThan deletes the sessions updated before the date and says how many', async (ctx) => {
      const { a } = await setup(ctx);
      const p = prefix();
      const workflow = team(a);
      await workflow.session(`${p}-old-1`).run('go');
      await after(Date.now());
      await workflow.session(`${p}-old-2`).run('go');
      const listed = await a.list();
      const newestOld = Math.max(...listed.sessions.map((s) => Date.parse(s.updatedAt)));
      const cut = new Date(newestOld + 1);
      await after(newestOld + 5);
      await workflow.session(`${p}-new`).run('go');

      expect(await a.deleteOlderThan(new Date(0))).toBe(0);
      expect(await a.deleteOlderThan(cut)).toBe(2);
      expect((await a.list()).sessions.map((s) => s.id)).toEqual([`${p}-new`]);
      expect(await a.read(`${p}-old-1`)).toEqual([]);
      expect(await a.read(`${p}-old-2`)).toEqual([]);
      expect(await a.deleteOlderThan(cut)).toBe(0);
    });

    it('session.delete() forgets the session and its whole log; SessionBusyError while it runs', async (ctx) => {
      const { a, b } = await setup(ctx);
      const p = prefix();
      let started!: () => void;
      const reached = new Promise<void>((resolve) => (started = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const busy = team(a, { started, release: released });
      const running = busy.session(`${p}-busy`).run('go');
      await reached;
      await expect(busy.session(`${p}-busy`).delete()).rejects.toThrow(SessionBusyError);
      await expect(team(b).session(`${p}-busy`).delete()).rejects.toThrow(SessionBusyError);
      release();
      const result = await running;
      expect(result.status).toBe('terminated');
      expect(await busy.session(`${p}-busy`).messages()).toEqual(result.messages);

      await team(b).session(`${p}-busy`).delete();
      expect(await a.read(`${p}-busy`)).toEqual([]);
      expect(await a.leaseHolder(`${p}-busy`)).toBeNull();
      expect((await a.list()).sessions.map((s) => s.id)).not.toContain(`${p}-busy`);
      expect(await busy.session(`${p}-busy`).messages()).toEqual([]);
      expect(await busy.session(`${p}-busy`).checkpoints()).toEqual([]);
    });
  });
}
