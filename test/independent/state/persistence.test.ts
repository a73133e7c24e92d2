// Independent suite for API.md §18 with §7: the state across resume in a new workflow object (file
// store, PostgreSQL), forks, saveState/loadState and info(); a stored state failing the schema.
// Written from API.md alone. Readings where the page is open:
// - `workflow.session(newId, { from: { session, step } })` forks the session as it was once `step`
//   was committed (the step numbers of checkpoints());
// - "a stored session whose state fails the schema on resume": resuming is `run()` on the session
//   through a workflow whose schema the stored state fails; it rejects with ConfigError whose
//   message names the field.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { ConfigError, type CheckpointStore } from '../../../src/index.js';
import { openFile, openPostgres, type OpenStores } from '../../support/store-fixtures.js';
import { desk, Desk, type DeskState, INITIAL, stateOf, systemText } from './support.js';

const stores: [string, OpenStores][] = [
  ['FileCheckpointStore', openFile],
  ['PostgresCheckpointStore', openPostgres],
];

async function withStores(
  ctx: { skip: (note?: string) => void },
  open: OpenStores,
  body: (a: CheckpointStore, b: CheckpointStore) => Promise<void>,
) {
  const fixture = await open();
  if (!fixture) return ctx.skip('the store’s server is not reachable');
  try {
    await body(fixture.a, fixture.b);
  } finally {
    await fixture.close();
  }
}

describe.each(stores)('the state in %s (API.md §18, §7)', (_name, open) => {
  it('a new workflow object resumes the session with its state; the next turn sees it', async (ctx) => {
    await withStores(ctx, open, async (a, b) => {
      const first = desk({ store: a });
      const id = `resume-${Math.random().toString(36).slice(2)}`;
      const result = await first.workflow.session(id).run('verify C-11');
      expect(result.pendingRequest!.prompt).toBe('Verified C-11');
      const verified = { customerId: 'C-11', verified: true, priority: 'low' };
      expect(await stateOf(first.workflow.session(id)).state()).toEqual(verified);

      const second = desk({ store: b });
      const session = second.workflow.session(id);
      expect(await stateOf(session).state()).toEqual(verified);
      const info = await session.info();
      expect(info.status).toBe('awaiting_input');
      expect(info.state).toEqual(verified);
      await stateOf(session).updateState((draft: DeskState) => {
        draft.priority = 'high';
      });
      const next = await session.run('thanks');
      expect(next.status).toBe('awaiting_input');
      expect(systemText(second.billingClient.calls[0]!)).toBe(
        'Customer C-11, verified true, priority high.',
      );
      // And back in the first object (another "process"), the app's update is there too.
      const third = desk({ store: a });
      expect(await stateOf(third.workflow.session(id)).state()).toEqual({
        ...verified,
        priority: 'high',
      });
      expect((await third.workflow.session(id).checkpoints()).map((c) => c.event)).toContain(
        'state_update',
      );
    });
  });

  it('a fork from an earlier step sees the state of that step', async (ctx) => {
    await withStores(ctx, open, async (a) => {
      const { workflow } = desk({ store: a });
      const id = `fork-${Math.random().toString(36).slice(2)}`;
      const session = workflow.session(id);
      await session.run('hello');
      const beforeUpdate = await session.checkpoints();
      const pausedAt = beforeUpdate.at(-1)!.step;
      await stateOf(session).updateState((draft: DeskState) => {
        draft.customerId = 'C-20';
      });
      await session.run('verify C-21');
      expect(await stateOf(session).state()).toEqual({
        customerId: 'C-21',
        verified: true,
        priority: 'low',
      });
      const steps = await session.checkpoints();
      const update = steps.find((s) => s.event === 'state_update')!;
      expect(update.step).toBe(pausedAt + 1);

      const early = workflow.session(`${id}-early`, { from: { session: id, step: pausedAt } });
      expect(await stateOf(early).state()).toEqual(INITIAL);
      const mid = workflow.session(`${id}-mid`, { from: { session: id, step: update.step } });
      expect(await stateOf(mid).state()).toEqual({ ...INITIAL, customerId: 'C-20' });
      expect((await mid.info()).state).toEqual({ ...INITIAL, customerId: 'C-20' });
      // The fork goes its own way; the original is untouched.
      await stateOf(early).updateState((draft: DeskState) => {
        draft.priority = 'high';
      });
      expect(await stateOf(early).state()).toEqual({ ...INITIAL, priority: 'high' });
      expect(await stateOf(session).state()).toEqual({
        customerId: 'C-21',
        verified: true,
        priority: 'low',
      });
    });
  });

  // Was a DISCREPANCY with API.md §18, fixed ("A stored session whose state fails the schema on resume is a
  // `ConfigError` naming the field"): the implementation rejects with a CheckpointError
  // ("… its state patch breaks the state's schema at priority …"), which names the field but is
  // the wrong class.
  it('a stored state that fails the schema on resume is a ConfigError naming the field', async (ctx) => {
    await withStores(ctx, open, async (a, b) => {
      const Wider = Desk.extend({ priority: z.enum(['low', 'high', 'urgent']) });
      const writer = desk({ store: a, schema: Wider });
      const id = `schema-${Math.random().toString(36).slice(2)}`;
      const session = writer.workflow.session(id);
      await session.run('hello');
      await stateOf(session).updateState((draft: { priority: string }) => {
        draft.priority = 'urgent';
      });
      const reader = desk({ store: b });
      const error = await reader.workflow
        .session(id)
        .run('again')
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain('priority');
      expect(reader.billingClient.calls).toHaveLength(0);
    });
  });
});

describe('saveState/loadState and info() carry the state (API.md §18, §5)', () => {
  it('loadState(saveState()) restores the state in another workflow object', async () => {
    const source = desk();
    const session = source.workflow.session('saved');
    await session.run('verify C-30');
    await stateOf(session).updateState((draft: DeskState) => {
      draft.priority = 'high';
    });
    const saved = await session.saveState();
    const expected = { customerId: 'C-30', verified: true, priority: 'high' };
    expect(JSON.parse(JSON.stringify(saved))).toEqual(saved);

    const target = desk();
    const restored = target.workflow.session('restored');
    await restored.loadState(JSON.parse(JSON.stringify(saved)));
    expect(await stateOf(restored).state()).toEqual(expected);
    expect((await restored.info()).state).toEqual(expected);
    expect(await restored.saveState()).toEqual(saved);
    const next = await restored.run('thanks');
    expect(next.status).toBe('awaiting_input');
    expect(systemText(target.billingClient.calls[0]!)).toBe(
      'Customer C-30, verified true, priority high.',
    );
  });

  it('the Runnable’s own saveState/loadState (the default session) carry the state', async () => {
    const source = desk();
    await source.workflow.run('verify C-31');
    const saved = await source.workflow.saveState();
    const target = desk();
    await target.workflow.loadState(saved);
    await target.workflow.run('and now');
    expect(systemText(target.billingClient.calls[0]!)).toBe(
      'Customer C-31, verified true, priority low.',
    );
  });

  // The page names ConfigError for a stored session; a saved state is one too, though loadState()
  // of damaged input may answer CheckpointError (§7): either names the field.
  it('loadState of a state whose conversation state fails the schema is refused, naming the field', async () => {
    const Wider = Desk.extend({ priority: z.enum(['low', 'high', 'urgent']) });
    const source = desk({ schema: Wider });
    const session = source.workflow.session('wide');
    await stateOf(session).updateState((draft: { priority: string }) => {
      draft.priority = 'urgent';
    });
    const saved = await session.saveState();
    const target = desk();
    const restored = target.workflow.session('narrow');
    const error = await restored.loadState(saved).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(['ConfigError', 'CheckpointError']).toContain((error as Error).name);
    expect((error as Error).message).toContain('priority');
    expect(await stateOf(restored).state()).toEqual(INITIAL);
  });
});
