import { describe, expect, it } from 'vitest';

import {
  type CheckpointStore,
  ConfigError,
  HandoffBuilder,
  MemoryCheckpointStore,
} from '../../src/index.js';
import { FakeAgent, type FakeTurn } from '../support/fake-agent.js';

function desk(store: CheckpointStore | undefined, triage: FakeTurn[]) {
  const agents = [new FakeAgent('triage', triage, []), new FakeAgent('billing', [], [])];
  const builder = new HandoffBuilder({ name: 'support', participants: agents }).coordinator(
    'triage',
  );
  return (store === undefined ? builder : builder.withCheckpointing(store)).build();
}

describe('session(id, { owner })', () => {
  it('records the owner with the first step, for store.list({ owner })', async () => {
    let now = Date.parse('2026-03-01T10:00:00.000Z');
    const store = new MemoryCheckpointStore({ clock: () => now });
    const workflow = desk(store, [{ say: 'one' }, { say: 'two' }, { say: 'three' }]);
    await workflow.session('mine', { owner: 'alice' }).run('hi');
    now += 1000;
    await workflow.session('anyone').run('hi');
    now += 1000;
    // An owner given for a session the store already holds changes nothing.
    await workflow.session('mine', { owner: 'mallory' }).run('again');
    expect(await store.list({ owner: 'alice' })).toEqual({
      sessions: [{ id: 'mine', owner: 'alice', step: 4, updatedAt: '2026-03-01T10:00:02.000Z' }],
    });
    expect(await store.list({ owner: 'mallory' })).toEqual({ sessions: [] });
    expect((await store.list()).sessions.map((s) => [s.id, s.owner])).toEqual([
      ['mine', 'alice'],
      ['anyone', undefined],
    ]);
  });

  it('refuses an empty owner, or one without a checkpoint store, with a ConfigError', () => {
    const withStore = desk(new MemoryCheckpointStore(), []);
    expect(() => withStore.session('s', { owner: '' })).toThrow(
      new ConfigError('session("s", { owner }): owner must be a non-empty string, got "".', {
        path: 'owner',
      }),
    );
    expect(() => desk(undefined, []).session('s', { owner: 'alice' })).toThrow(
      new ConfigError(
        'session("s", { owner }): an owner is recorded in a checkpoint store, and this workflow ' +
          'has none. Configure one with withCheckpointing(), or leave owner out.',
        { path: 'owner' },
      ),
    );
  });
});
