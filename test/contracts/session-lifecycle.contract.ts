import { describe, expect, it } from 'vitest';

import type { CheckpointRecord, CheckpointStore } from '../../src/checkpoint/checkpoint-store.js';
import { ConfigError } from '../../src/errors.js';
import { skipNoteFor } from '../support/skip-notes.js';

/** A store (two handles on one backend) whose `updatedAt` times read `clock`, and its leftovers. */
export interface LifecycleFixture {
  readonly a: CheckpointStore;
  readonly b: CheckpointStore;
  /** What the backend still holds of `sessionId` (files, keys, rows): `[]` when nothing. */
  traces(sessionId: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Opens an empty store whose `updatedAt` reads `clock`; undefined when the backend is down. */
export type OpenLifecycleStore = (clock: () => number) => Promise<LifecycleFixture | undefined>;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const rec = (step: number, data: string, snapshot = false): CheckpointRecord => ({
  step,
  snapshot,
  data,
});

/** `delete()`, `list()` and `deleteOlderThan()` (API.md §21), each case on a store of its own. */
export function describeSessionLifecycle(name: string, open: OpenLifecycleStore): void {
  describe(`${name} (session lifecycle contract)`, () => {
    /** Runs `body` on a fresh store whose clock reads `T0 + seconds` as `setTime(seconds)` says. */
    async function withStore(
      ctx: { skip(note: string): void },
      body: (f: LifecycleFixture, setTime: (seconds: number) => void) => Promise<void>,
    ): Promise<void> {
      let now = T0;
      const fixture = await open(() => now);
      if (fixture === undefined) return ctx.skip(skipNoteFor(name));
      try {
        await body(fixture, (seconds) => {
          now = T0 + seconds * 1000;
        });
      } finally {
        await fixture.close();
      }
    }

    /** Appends a session's first `steps` records (a snapshot, then patches) at the current time. */
    async function create(store: CheckpointStore, id: string, steps = 1, owner?: string) {
      const options = owner === undefined ? undefined : { owner };
      expect(await store.append(id, rec(1, `${id} 1`, true), options)).toBe(true);
      for (let step = 2; step <= steps; step++) {
        expect(await store.append(id, rec(step, `${id} ${step}`))).toBe(true);
      }
    }

    it('deletes a session whole, and the id starts a new empty session', async (ctx) => {
      await withStore(ctx, async ({ a, b, traces }) => {
        await create(a, 'doomed', 3);
        await create(a, 'kept', 1);
        expect(await a.acquireLease('doomed', 'runner', 5_000)).toBe(true);
        expect((await traces('doomed')).length).toBeGreaterThan(0);
        expect(await b.delete('doomed')).toBe(true);
        expect(await traces('doomed')).toEqual([]);
        expect(await a.read('doomed', { from: 'start' })).toEqual([]);
        expect(await a.leaseHolder('doomed')).toBeNull();
        expect((await a.list()).sessions.map((s) => s.id)).toEqual(['kept']);
        expect(await a.delete('doomed')).toBe(false);
        expect(await a.delete('never-there')).toBe(false);
        expect(await a.append('doomed', rec(2, 'stale writer'))).toBe(false);
        expect(await a.append('doomed', rec(1, 'reborn', true))).toBe(true);
        expect(await b.read('doomed', { from: 'start' })).toEqual([rec(1, 'reborn', true)]);
        expect(await a.read('kept')).toEqual([rec(1, 'kept 1', true)]);
      });
    });

    it('lists sessions newest first, ties by id, with their last step and time', async (ctx) => {
      await withStore(ctx, async ({ a, b }, setTime) => {
        setTime(1);
        await create(a, 'first', 2);
        setTime(3);
        await create(a, 'beta', 1);
        setTime(2);
        await create(a, 'middle', 1);
        setTime(3);
        await create(a, 'alpha', 1);
        setTime(4);
        expect(await a.append('first', rec(3, 'later'))).toBe(true);
        expect(await b.list()).toEqual({
          sessions: [
            { id: 'first', step: 3, updatedAt: at(4) },
            { id: 'alpha', step: 1, updatedAt: at(3) },
            { id: 'beta', step: 1, updatedAt: at(3) },
            { id: 'middle', step: 1, updatedAt: at(2) },
          ],
        });
      });
    });

    it('pages through every session exactly once while sessions are added', async (ctx) => {
      await withStore(ctx, async ({ a, b }, setTime) => {
        for (const [i, id] of ['s1', 's2', 's3', 's4', 's5'].entries()) {
          setTime(10 + i);
          await create(a, id, 1);
        }
        const seen: string[] = [];
        let page = await b.list({ limit: 2 });
        let added = 0;
        for (;;) {
          seen.push(...page.sessions.map((s) => `${s.id}@${s.updatedAt}`));
          if (page.cursor === undefined) break;
          setTime(100 + added);
          await create(a, `new${added++}`, 1);
          page = await b.list({ limit: 2, cursor: page.cursor });
        }
        expect(seen).toEqual([
          `s5@${at(14)}`,
          `s4@${at(13)}`,
          `s3@${at(12)}`,
          `s2@${at(11)}`,
          `s1@${at(10)}`,
        ]);
        expect(added).toBe(2);
        expect((await b.list({ limit: 3 })).sessions.map((s) => s.id)).toEqual([
          'new1',
          'new0',
          's5',
        ]);
      });
    });

    it('keeps the owner given when a session is created, and filters by it', async (ctx) => {
      await withStore(ctx, async ({ a, b }, setTime) => {
        setTime(1);
        await create(a, 'alice-1', 1, 'alice');
        setTime(2);
        await create(a, 'bob-1', 1, 'bob');
        setTime(3);
        await create(a, 'nobody', 1);
        setTime(4);
        await create(a, 'alice-2', 1, 'alice');
        setTime(5);
        expect(await a.append('alice-1', rec(2, 'two'), { owner: 'mallory' })).toBe(true);
        expect(await b.list({ owner: 'alice' })).toEqual({
          sessions: [
            { id: 'alice-1', owner: 'alice', step: 2, updatedAt: at(5) },
            { id: 'alice-2', owner: 'alice', step: 1, updatedAt: at(4) },
          ],
        });
        const page1 = await b.list({ owner: 'alice', limit: 1 });
        expect(page1.sessions.map((s) => s.id)).toEqual(['alice-1']);
        const page2 = await b.list({ owner: 'alice', limit: 1, cursor: page1.cursor as string });
        expect(page2).toEqual({
          sessions: [{ id: 'alice-2', owner: 'alice', step: 1, updatedAt: at(4) }],
        });
        expect(await b.list({ owner: 'mallory' })).toEqual({ sessions: [] });
        expect((await b.list()).sessions).toEqual([
          { id: 'alice-1', owner: 'alice', step: 2, updatedAt: at(5) },
          { id: 'alice-2', owner: 'alice', step: 1, updatedAt: at(4) },
          { id: 'nobody', step: 1, updatedAt: at(3) },
          { id: 'bob-1', owner: 'bob', step: 1, updatedAt: at(2) },
        ]);
        expect(await a.delete('alice-1')).toBe(true);
        expect((await b.list({ owner: 'alice' })).sessions.map((s) => s.id)).toEqual(['alice-2']);
      });
    });

    it('deletes the sessions last updated before a date, and keeps the others', async (ctx) => {
      await withStore(ctx, async ({ a, b, traces }, setTime) => {
        for (const [i, id] of ['old1', 'old2', 'edge', 'new'].entries()) {
          setTime(i);
          await create(a, id, 2, 'owner');
        }
        setTime(9);
        expect(await a.append('old1', rec(3, 'touched'))).toBe(true);
        expect(await b.deleteOlderThan(new Date(T0 + 2_000))).toBe(1);
        expect(await traces('old2')).toEqual([]);
        expect(await a.read('old2', { from: 'start' })).toEqual([]);
        expect((await a.list()).sessions.map((s) => `${s.id}@${s.updatedAt}`)).toEqual([
          `old1@${at(9)}`,
          `new@${at(3)}`,
          `edge@${at(2)}`,
        ]);
        expect(await b.deleteOlderThan(new Date(T0 + 9_001))).toBe(3);
        expect(await a.list()).toEqual({ sessions: [] });
        expect(await a.list({ owner: 'owner' })).toEqual({ sessions: [] });
        expect(await b.deleteOlderThan(new Date(T0 + 9_001))).toBe(0);
      });
    });

    it('keeps times to the millisecond, so a cursor from any clock pages on', async (ctx) => {
      await withStore(ctx, async ({ a, b }, setTime) => {
        setTime(0.0004);
        await create(a, 'early', 1);
        setTime(0.0006);
        await create(a, 'late', 1);
        const first = await b.list({ limit: 1 });
        expect(first.sessions).toEqual([{ id: 'late', step: 1, updatedAt: at(0.001) }]);
        expect(await b.list({ limit: 1, cursor: first.cursor as string })).toEqual({
          sessions: [{ id: 'early', step: 1, updatedAt: at(0) }],
        });
      });
    });

    it('refuses a bad limit, cursor or date with a ConfigError naming it', async (ctx) => {
      await withStore(ctx, async ({ a }) => {
        await expect(a.list({ limit: 0 })).rejects.toThrow(
          new ConfigError(
            `${name}.list(): \`limit\` must be an integer from 1 to 1000, got 0. Leave it out ` +
              'for 100.',
            { path: 'limit' },
          ),
        );
        await expect(a.list({ cursor: 'not-a-cursor' })).rejects.toThrow(
          new ConfigError(
            `${name}.list(): the cursor "not-a-cursor" is not one list() returned. Pass the ` +
              '`cursor` of the previous page as it is, or leave it out for the first page.',
            { path: 'cursor' },
          ),
        );
        await expect(a.deleteOlderThan(new Date('nonsense'))).rejects.toBeInstanceOf(ConfigError);
      });
    });
  });
}
