// serve() checks a session's owner with the store's one-session lookup (OWNER_OF) when the store
// has one, and through list({ owner }) otherwise: both must answer alike, in the stores that
// have the lookup (memory, Postgres) and through a store that has only the public interface.
import { afterEach, describe, expect, it } from 'vitest';

import type { CheckpointStore } from '../../src/checkpoint/checkpoint-store.js';
import {
  hasOwnedLease,
  hasOwnerLookup,
  OWNER_OF,
  TAKE_OWNED,
} from '../../src/checkpoint/session-list.js';
import { Tenancy } from '../../src/serve/tenancy.js';
import { openMemory, openPostgres, type OpenStores } from '../support/store-fixtures.js';

const record = { step: 1, snapshot: true, data: '{"v":1}' };

/** The store's public methods only: no OWNER_OF, so Tenancy asks through list(). */
function publicOnly(store: CheckpointStore): CheckpointStore {
  return {
    append: (id, r, options) => store.append(id, r, options),
    read: (id, options) => store.read(id, options),
    acquireLease: (id, owner, ttl) => store.acquireLease(id, owner, ttl),
    releaseLease: (id, owner) => store.releaseLease(id, owner),
    leaseHolder: (id) => store.leaseHolder(id),
    delete: (id) => store.delete(id),
    list: (options) => store.list(options),
    deleteOlderThan: (date) => store.deleteOlderThan(date),
    close: async () => {},
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe.each([
  ['MemoryCheckpointStore', openMemory],
  ['PostgresCheckpointStore', openPostgres],
] as [string, OpenStores][])('owner lookup in %s', (_name, open) => {
  it('answers the owner list({ owner }) lists a session under, and nothing for others', async () => {
    const fixture = await open();
    if (fixture === undefined) return;
    closers.push(() => fixture.close());
    const store = fixture.a;
    expect(hasOwnerLookup(store)).toBe(true);
    if (!hasOwnerLookup(store)) return;
    await store.append('alice-1', record, { owner: 'alice' });
    await store.append('bob-1', record, { owner: 'bob' });
    await store.append('nobody-1', record);
    const direct = new Tenancy(store);
    const viaList = new Tenancy(publicOnly(store));
    // A later record's owner is ignored: the session stays alice's.
    await store.append('alice-1', { step: 2, snapshot: false, data: '{}' }, { owner: 'bob' });

    const ownerOf = async (id: string) => (await store[OWNER_OF](id)).owner;
    expect(await ownerOf('alice-1')).toBe('alice');
    expect(await ownerOf('bob-1')).toBe('bob');
    expect(await ownerOf('nobody-1')).toBeUndefined();
    expect(await ownerOf('missing')).toBeUndefined();
    expect(await ownerOf('with\u0000nul')).toBeUndefined();

    // The leases asked for, in their order, as leaseHolder() answers them.
    expect(await fixture.b.acquireLease('alice-1', 'process-a', 60_000)).toBe(true);
    expect(await fixture.b.acquireLease('stop:alice-1', 'process-b', 60_000)).toBe(true);
    expect(await fixture.b.acquireLease('gone', 'process-c', 1)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const keys = ['stop:alice-1', 'free', 'alice-1', 'gone', 'with\u0000nul'];
    expect(await store[OWNER_OF]('alice-1', keys)).toEqual({
      owner: 'alice',
      holders: ['process-b', null, 'process-a', null, null],
      step: 2,
    });
    expect(await Promise.all(keys.slice(0, 4).map((k) => store.leaseHolder(k)))).toEqual([
      'process-b',
      null,
      'process-a',
      null,
    ]);
    expect(await store[OWNER_OF]('missing', ['alice-1'])).toEqual({
      owner: undefined,
      holders: ['process-a'],
      step: 0,
    });
    expect(await store[OWNER_OF]('bob-1')).toEqual({ owner: 'bob', holders: [], step: 1 });
    expect(await direct.ownsWithLeases('alice', 'alice-1', ['alice-1', 'free'])).toEqual({
      owns: true,
      holders: ['process-a', null],
      step: 2,
    });
    expect(await viaList.ownsWithLeases('alice', 'alice-1', ['alice-1', 'free'])).toEqual({
      owns: true,
      holders: ['process-a', null],
    });
    expect(await viaList.ownsWithLeases('bob', 'alice-1', ['alice-1'])).toEqual({
      owns: false,
      holders: [null],
    });
    await fixture.b.releaseLease('alice-1', 'process-a');
    const listed = (await store.list({ owner: 'alice' })).sessions.map((s) => s.id);
    expect(listed).toEqual(['alice-1']);

    const cases: [string, string, boolean][] = [
      ['alice', 'alice-1', true],
      ['bob', 'alice-1', false],
      ['bob', 'bob-1', true],
      ['alice', 'nobody-1', false],
      ['alice', 'missing', false],
    ];
    for (const [owner, id, owns] of cases) {
      expect([owner, id, await direct.owns(owner, id)]).toEqual([owner, id, owns]);
      expect([owner, id, await viaList.owns(owner, id)]).toEqual([owner, id, owns]);
    }

    // Deleted and made again by another principal: the session changes hands at once.
    await store.delete('alice-1');
    expect(await ownerOf('alice-1')).toBeUndefined();
    await fixture.b.append('alice-1', record, { owner: 'bob' });
    expect(await direct.owns('alice', 'alice-1')).toBe(false);
    expect(await direct.owns('bob', 'alice-1')).toBe(true);
    expect(await viaList.owns('bob', 'alice-1')).toBe(true);
  });

  it("takes a session's lease only for its owner, reading the owner, the last step and other leases in the same lookup", async () => {
    const fixture = await open();
    if (fixture === undefined) return;
    closers.push(() => fixture.close());
    const store = fixture.a;
    expect(hasOwnedLease(store)).toBe(true);
    if (!hasOwnedLease(store)) return;
    await store.append('alice-1', record, { owner: 'alice' });
    await store.append('alice-1', { step: 2, snapshot: false, data: '{}' });
    await store.append('nobody-1', record);
    expect(await fixture.b.acquireLease('stop:alice-1', 'baton.stop', 60_000)).toBe(true);

    const take = (id: string, owner: string, holder: string, leases: string[] = []) =>
      store[TAKE_OWNED](id, owner, holder, 60_000, leases);
    // Another principal, a session without an owner, a missing one: no lease is taken.
    expect(await take('alice-1', 'bob', 'run-b', ['stop:alice-1'])).toEqual({
      owner: 'alice',
      holders: ['baton.stop'],
      step: 2,
      acquired: false,
    });
    expect(await take('nobody-1', 'alice', 'run-n')).toEqual({
      owner: undefined,
      holders: [],
      step: 1,
      acquired: false,
    });
    expect(await take('missing', 'alice', 'run-m', ['free'])).toEqual({
      owner: undefined,
      holders: [null],
      step: 0,
      acquired: false,
    });
    expect(await take('with\u0000nul', 'alice', 'run-z')).toEqual({
      owner: undefined,
      holders: [],
      step: 0,
      acquired: false,
    });
    expect(
      await Promise.all(['alice-1', 'nobody-1', 'missing'].map((k) => store.leaseHolder(k))),
    ).toEqual([null, null, null]);

    // The owner takes it (and renews it as the same holder); another holder is refused meanwhile.
    const taken = { owner: 'alice', holders: ['baton.stop', null], step: 2, acquired: true };
    expect(await take('alice-1', 'alice', 'run-1', ['stop:alice-1', 'free'])).toEqual(taken);
    expect(await fixture.b.leaseHolder('alice-1')).toBe('run-1');
    expect(await take('alice-1', 'alice', 'run-1', ['stop:alice-1', 'free'])).toEqual(taken);
    expect(await take('alice-1', 'alice', 'run-2')).toEqual({
      owner: 'alice',
      holders: [],
      step: 2,
      acquired: false,
    });
    expect(await fixture.b.leaseHolder('alice-1')).toBe('run-1');
    // An expired lease is taken over.
    await store.releaseLease('alice-1', 'run-1');
    expect(await fixture.b.acquireLease('alice-1', 'run-old', 1)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await take('alice-1', 'alice', 'run-3')).acquired).toBe(true);
    expect(await fixture.b.leaseHolder('alice-1')).toBe('run-3');
    await store.releaseLease('alice-1', 'run-3');

    // Deleted (by another process) and made again by another principal: it changes hands at once.
    await fixture.b.delete('alice-1');
    expect(await take('alice-1', 'alice', 'run-4')).toEqual({
      owner: undefined,
      holders: [],
      step: 0,
      acquired: false,
    });
    await fixture.b.append('alice-1', record, { owner: 'bob' });
    expect((await take('alice-1', 'alice', 'run-5')).acquired).toBe(false);
    expect(await take('alice-1', 'bob', 'run-6')).toEqual({
      owner: 'bob',
      holders: [],
      step: 1,
      acquired: true,
    });
    expect(await store.leaseHolder('alice-1')).toBe('run-6');
  });
});
