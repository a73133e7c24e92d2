// Independent suite for API.md §25: `state: { version, migrate }` (migrate runs when a session of an
// older state version loads, its result is checked against the schema; a failing result is a
// ConfigError naming the field and leaves the stored session as it was) and
// `checkSessions(workflow, store)` (per stored session, ok or the reason it would fail). Written
// from API.md §25 (with §5–§7, §10, §18) alone. Readings where the page is open:
// - the migration error surfaces on the next `run()` of the session (the first async use);
// - the order of `checkSessions` results is not promised, so they are compared sorted by id.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { checkSessions, ConfigError } from '../../../src/index.js';
import { desk, stateOf, STORES, updateStateOf } from './support.js';

const V1 = { schema: z.object({ name: z.string() }), initial: { name: '' }, version: 1 };
const V2Schema = z.object({ firstName: z.string(), tier: z.enum(['basic', 'gold']) });

function v2(migrate: (old: unknown, from: number) => unknown) {
  const calls: [unknown, number][] = [];
  return {
    calls,
    state: {
      schema: V2Schema,
      initial: { firstName: '', tier: 'basic' },
      version: 2,
      migrate: (old: unknown, from: number) => {
        calls.push([structuredClone(old), from]);
        return migrate(old, from);
      },
    },
  };
}
const good = (old: unknown) => ({ firstName: (old as { name: string }).name, tier: 'gold' });
const bad = () => ({ firstName: 42, tier: 'gold' });

describe.each(STORES)('§25 state versions and migrate ($name)', ({ make }) => {
  let dispose = () => {};
  afterEach(() => dispose());

  async function storedV1(sessionId: string) {
    const made = make();
    dispose = made.dispose;
    const session = desk({ store: made.store, state: V1 }).session(sessionId);
    const paused = await session.run('my invoice');
    expect(paused.pendingRequest).toMatchObject({
      agent: 'billing',
      prompt: 'billing: my invoice',
    });
    await updateStateOf(session, (draft: { name: string }) => {
      draft.name = 'Ada';
    });
    expect(await stateOf(session)).toEqual({ name: 'Ada' });
    return made.store;
  }

  it('migrate is called with (old, 1); its result is the state after load, and it is kept', async () => {
    const store = await storedV1('mig-1');
    const { calls, state } = v2(good);
    const session = desk({ store, state }).session('mig-1');
    expect(await stateOf(session)).toEqual({ firstName: 'Ada', tier: 'gold' });
    expect(calls[0]).toEqual([{ name: 'Ada' }, 1]);
    expect(
      calls.every(([old, from]) => from === 1 && JSON.stringify(old) === '{"name":"Ada"}'),
    ).toBe(true);

    const result = await session.run('still charged');
    expect(result.pendingRequest).toMatchObject({
      agent: 'billing',
      prompt: 'billing: still charged',
    });
    expect(await stateOf(session)).toEqual({ firstName: 'Ada', tier: 'gold' });
    expect((await session.info()).state).toEqual({ firstName: 'Ada', tier: 'gold' });

    // Committed with that step: a fresh build of the new version loads it without migrating.
    const later = v2(good);
    const again = desk({ store, state: later.state }).session('mig-1');
    expect(await stateOf(again)).toEqual({ firstName: 'Ada', tier: 'gold' });
    expect(later.calls).toEqual([]);
  });

  it('a migrate result that fails the schema is a ConfigError naming the field; the old build still resumes', async () => {
    const store = await storedV1('mig-bad');
    const before = await desk({ store, state: V1 }).session('mig-bad').messages();
    const { calls, state } = v2(bad);

    const failed = desk({ store, state }).session('mig-bad').run('still charged');
    await expect(failed).rejects.toBeInstanceOf(ConfigError);
    await expect(desk({ store, state }).session('mig-bad').run('still charged')).rejects.toThrow(
      /firstName/,
    );
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[0]).toEqual([{ name: 'Ada' }, 1]);

    const old = desk({ store, state: V1 }).session('mig-bad');
    expect(await old.messages()).toEqual(before);
    expect(await stateOf(old)).toEqual({ name: 'Ada' });
    const result = await old.run('still charged');
    expect(result.status).toBe('awaiting_input');
    expect(result.pendingRequest).toMatchObject({
      agent: 'billing',
      prompt: 'billing: still charged',
    });
    expect(await stateOf(old)).toEqual({ name: 'Ada' });
  });
});

describe.each(STORES)('§25 checkSessions ($name)', ({ make }) => {
  let dispose = () => {};
  afterEach(() => dispose());

  const sorted = (rows: { sessionId: string }[]) =>
    [...rows].sort((a, b) => a.sessionId.localeCompare(b.sessionId));

  it('reports ok for a compatible session and ok:false with a reason for incompatible ones', async () => {
    const made = make();
    dispose = made.dispose;
    const { store } = made;
    // Each session is written by its own build; the new build is the first plus an agent.
    await desk({ store }).session('s-ok').run('my invoice');
    await desk({ store, tech: true }).session('s-agent').run('tech');
    const approval = await desk({ store, refund: true }).session('s-tool').run('refund please');
    expect(approval.pendingRequest?.kind).toBe('approval');

    const rows = await checkSessions(desk({ extraAgent: true }), store);
    expect(rows).toHaveLength(3);
    const [agent, ok, toolRow] = sorted(rows) as {
      sessionId: string;
      ok: boolean;
      reason?: string;
    }[];
    expect(ok).toEqual({ sessionId: 's-ok', ok: true });
    for (const [row, id] of [
      [agent, 's-agent'],
      [toolRow, 's-tool'],
    ] as const) {
      expect(row).toMatchObject({ sessionId: id, ok: false });
      expect(typeof row!.reason).toBe('string');
      expect(row!.reason!.length).toBeGreaterThan(0);
    }
  });

  it('a session whose migrated state fails the schema is not ok; a good migrate is', async () => {
    const made = make();
    dispose = made.dispose;
    const { store } = made;
    await desk({ store, state: V1 }).session('m-1').run('my invoice');

    const okRows = await checkSessions(desk({ state: v2(good).state }), store);
    expect(okRows).toEqual([{ sessionId: 'm-1', ok: true }]);

    const badRows = await checkSessions(desk({ state: v2(bad).state }), store);
    expect(badRows).toHaveLength(1);
    expect(badRows[0]).toMatchObject({ sessionId: 'm-1', ok: false });
    expect(badRows[0]!.reason).toMatch(/firstName/);

    // Checking changes nothing: the old build still resumes the session.
    const result = await desk({ store, state: V1 }).session('m-1').run('again');
    expect(result.pendingRequest).toMatchObject({ agent: 'billing', prompt: 'billing: again' });
  });
});
