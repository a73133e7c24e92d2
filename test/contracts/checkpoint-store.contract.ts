import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { CheckpointRecord, CheckpointStore } from '../../src/checkpoint/checkpoint-store.js';
import { MAX_SESSION_ID_LENGTH } from '../../src/checkpoint/session-id.js';
import { ConfigError } from '../../src/errors.js';
import { skipNoteFor } from '../support/skip-notes.js';

/** Two handles on one backend (as two processes would have), and how to clean up. */
export interface StoreFixture {
  readonly a: CheckpointStore;
  readonly b: CheckpointStore;
  close(): Promise<void>;
}

const rec = (step: number, data: string, snapshot = false): CheckpointRecord => ({
  step,
  snapshot,
  data,
});
const steps = (records: readonly CheckpointRecord[]) => records.map((r) => r.step);

/**
 * The behaviour every `CheckpointStore` shares, run against each implementation. `open` may skip
 * (return undefined) only when the backend is unavailable and BATON_REQUIRE_SERVICES is not set.
 */
export function describeCheckpointStore(
  name: string,
  open: () => Promise<StoreFixture | undefined>,
): void {
  describe(`${name} (CheckpointStore contract)`, () => {
    let fixture: StoreFixture | undefined;
    const id = () => `contract-${randomUUID()}`;
    const stores = () => {
      if (fixture === undefined) throw new Error('store fixture missing');
      return fixture;
    };

    beforeAll(async () => {
      fixture = await open();
    });
    afterAll(async () => {
      await fixture?.close();
    });

    it('reads an unknown session as an empty log', async (ctx) => {
      if (fixture === undefined) return ctx.skip(skipNoteFor(name));
      expect(await stores().a.read(id())).toEqual([]);
      expect(await stores().a.read(id(), { from: 'start' })).toEqual([]);
    });

    it('starts a log only with a snapshot, at any step', async (ctx) => {
      if (fixture === undefined) return ctx.skip(skipNoteFor(name));
      const { a } = stores();
      const s = id();
      expect(await a.append(s, rec(1, 'patch'))).toBe(false);
      expect(await a.read(s)).toEqual([]);
      expect(await a.append(s, rec(7, 'fork', true))).toBe(true);
      expect(await a.read(s)).toEqual([rec(7, 'fork', true)]);
    });

    it('appends only the next step, so a stale writer loses', async (ctx) => {
      if (fixture === undefined) return ctx.skip(skipNoteFor(name));
      const { a, b } = stores();
      const s = id();
      expect(await a.append(s, rec(1, 'one', true))).toBe(true);
      expect(await b.append(s, rec(2, 'two'))).toBe(true);
      expect(await a.append(s, rec(2, 'two again'))).toBe(false);
      expect(await a.append(s, rec(4, 'four'))).toBe(false);
      expect(await a.append(s, rec(1, 'one again', true))).toBe(false);
      expect(await a.read(s, { from: 'start' })).toEqual([rec(1, 'one', true), rec(2, 'two')]);
    });

    it('reads from the latest snapshot, from the start, after a step and up to a step', async (ctx) => {
      if (fixture === undefined) return ctx.skip(skipNoteFor(name));
      const { a, b } = stores();
      const s = id();
      for (const r of [
        rec(1, 's1', true),
        rec(2, 'p2'),
        rec(3, 'p3'),
        rec(4, 's4', true),
        rec(5, 'p5'),
      ]) {
        expect(await a.append(s, r)).toBe(true);
      }
      expect(steps(await b.read(s))).toEqual([4, 5]);
      expect(steps(await b.read(s, { from: 'snapshot' }))).toEqual([4, 5]);
      expect(steps(await b.read(s, { upTo: 3 }))).toEqual([1, 2, 3]);
      expect(steps(await b.read(s, { upTo: 4 }))).toEqual([4]);
      expect(steps(await b.read(s, { from: 'start' }))).toEqual([1, 2, 3, 4, 5]);
      expect(steps(await b.read(s, { from: { after: 3 } }))).toEqual([4, 5]);
      expect(steps(await b.read(s, { from: { after: 5 } }))).toEqual([]);
      expect(steps(await b.read(s, { from: 'start', upTo: 2 }))).toEqual([1, 2]);
    });

    it('keeps data byte for byte, large and non-ASCII included', async (ctx) => {
      if (fixture === undefined) return ctx.skip(skipNoteFor(name));
      const { a, b } = stores();
      const s = id();
      const odd = 'line\nbreak\r\n"quotes" \\ tab\t ünïcødé 🚀 \u0000 end';
      const big = 'x'.repeat(1_000_000);
      expect(await a.append(s, rec(1, odd, true))).toBe(true);
      expect(await a.append(s, rec(2, big))).toBe(true);
      const [first, second] = await b.read(s, { from: 'start' });
      expect(first?.data).toBe(odd);
      expect(second?.data.length).toBe(1_000_000);
    });

    it('lets exactly one of many concurrent writers of a step win', async (ctx) => {
      if (fixture === undefined) return ctx.skip(skipNoteFor(name));
      const { a, b } = stores();
      const s = id();
      await a.append(s, rec(1, 'base', true));
      const attempts = Array.from({ length: 12 }, (_, i) =>
        (i % 2 === 0 ? a : b).append(s, rec(2, `writer ${i}`)),
      );
      const wins = (await Promise.all(attempts)).filter(Boolean);
      expect(wins).toHaveLength(1);
      const log = await a.read(s, { from: 'start' });
      expect(steps(log)).toEqual([1, 2]);
    });

    it('keeps sessions apart, whatever their ids contain', async (ctx) => {
      if (fixture === undefined) return ctx.skip(skipNoteFor(name));
      const { a } = stores();
      const base = id();
      const ids = [`${base}/a:b c`, `${base}/a:b c/`, `${base}-ünï 🚀`, `${base}%2F..`];
      for (const [i, s] of ids.entries())
        expect(await a.append(s, rec(1, `data ${i}`, true))).toBe(true);
      for (const [i, s] of ids.entries())
        expect(await a.read(s)).toEqual([rec(1, `data ${i}`, true)]);
    });

    it('takes ids of up to 256 characters and refuses longer ones with a ConfigError', async (ctx) => {
      if (fixture === undefined) return ctx.skip(skipNoteFor(name));
      const { a, b } = stores();
      const longest = `${id()}-`.padEnd(MAX_SESSION_ID_LENGTH, 'ü');
      expect(await a.append(longest, rec(1, 'one', true))).toBe(true);
      expect(await b.read(longest)).toEqual([rec(1, 'one', true)]);
      expect(await b.acquireLease(longest, 'one', 5_000)).toBe(true);
      const tooLong = `${longest}x`;
      const refusals = [
        a.append(tooLong, rec(1, 'one', true)),
        a.read(tooLong),
        a.acquireLease(tooLong, 'one', 5_000),
        a.releaseLease(tooLong, 'one'),
        a.leaseHolder(tooLong),
      ];
      for (const refusal of refusals) {
        const error = await refusal.then(
          () => new Error('accepted'),
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as Error).message).toBe(
          `${name}: the session id "${tooLong.slice(0, 32)}…" is 257 characters long; ` +
            'checkpoint stores take ids of at most 256 characters (UTF-16 code units). Use a ' +
            'shorter id, e.g. a hash of this one.',
        );
      }
    });

    it('holds a lease for one owner at a time until it expires or is released', async (ctx) => {
      if (fixture === undefined) return ctx.skip(skipNoteFor(name));
      const { a, b } = stores();
      const s = id();
      expect(await a.leaseHolder(s)).toBeNull();
      expect(await a.acquireLease(s, 'one', 5_000)).toBe(true);
      expect(await b.acquireLease(s, 'two', 5_000)).toBe(false);
      expect(await b.leaseHolder(s)).toBe('one');
      expect(await a.acquireLease(s, 'one', 5_000)).toBe(true);
      await b.releaseLease(s, 'two');
      expect(await a.leaseHolder(s)).toBe('one');
      await a.releaseLease(s, 'one');
      expect(await b.leaseHolder(s)).toBeNull();
      expect(await b.acquireLease(s, 'two', 200)).toBe(true);
      await sleep(450);
      expect(await a.leaseHolder(s)).toBeNull();
      expect(await a.acquireLease(s, 'one', 5_000)).toBe(true);
    });

    it('lets exactly one of many concurrent lease takers win', async (ctx) => {
      if (fixture === undefined) return ctx.skip(skipNoteFor(name));
      const { a, b } = stores();
      const s = id();
      const tries = Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? a : b).acquireLease(s, `owner ${i}`, 5_000),
      );
      expect((await Promise.all(tries)).filter(Boolean)).toHaveLength(1);
    });

    it('lets one of two writers opening a log at once win, even at different steps', async (ctx) => {
      if (fixture === undefined) return ctx.skip(skipNoteFor(name));
      const { a, b } = stores();
      for (let i = 0; i < 10; i++) {
        const s = id();
        const [fresh, fork] = await Promise.all([
          a.append(s, rec(1, 'fresh', true)),
          b.append(s, rec(5, 'fork', true)),
        ]);
        expect([fresh, fork].filter(Boolean)).toHaveLength(1);
        const winner = fresh ? rec(1, 'fresh', true) : rec(5, 'fork', true);
        expect(await a.read(s, { from: 'start' })).toEqual([winner]);
      }
    });

    it('continues a log that opens at a later step, as a fork does', async (ctx) => {
      if (fixture === undefined) return ctx.skip(skipNoteFor(name));
      const { a, b } = stores();
      const s = id();
      expect(await a.append(s, rec(7, 'fork', true))).toBe(true);
      expect(await b.append(s, rec(8, 'p8'))).toBe(true);
      expect(await a.append(s, rec(7, 'fork again', true))).toBe(false);
      expect(await a.append(s, rec(10, 'p10'))).toBe(false);
      expect(await b.read(s, { upTo: 6 })).toEqual([]);
      expect(await b.read(s, { from: 'start', upTo: 6 })).toEqual([]);
      expect(steps(await b.read(s, { from: { after: 3 } }))).toEqual([7, 8]);
      expect(steps(await b.read(s, { upTo: 100 }))).toEqual([7, 8]);
    });

    it('renews a lease for its owner and ignores releases of leases nobody holds', async (ctx) => {
      if (fixture === undefined) return ctx.skip(skipNoteFor(name));
      const { a, b } = stores();
      const s = id();
      expect(await a.acquireLease(s, 'one', 200)).toBe(true);
      expect(await a.acquireLease(s, 'one', 5_000)).toBe(true);
      await sleep(450);
      expect(await b.leaseHolder(s)).toBe('one');
      expect(await b.acquireLease(s, 'two', 5_000)).toBe(false);
      await expect(b.releaseLease(id(), 'nobody')).resolves.toBeUndefined();
    });
  });
}
