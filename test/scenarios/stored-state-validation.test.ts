import { describe, expect, it } from 'vitest';

import {
  type CheckpointStore,
  ConfigError,
  HandoffBuilder,
  MaxMessageTermination,
  MemoryCheckpointStore,
} from '../../src/index.js';
import { FakeAgent, type FakeTurn } from '../support/fake-agent.js';

/** A workflow object over `store`, as another process would build it. */
function desk(store: CheckpointStore, script: { triage?: FakeTurn[]; billing?: FakeTurn[] } = {}) {
  const agents = [
    new FakeAgent('triage', script.triage ?? []),
    new FakeAgent('billing', script.billing ?? []),
  ];
  return new HandoffBuilder({ name: 'support', participants: agents })
    .coordinator('triage')
    .withTerminationCondition(new MaxMessageTermination(20))
    .withCheckpointing(store)
    .build();
}

async function loadError(load: () => Promise<void>): Promise<ConfigError> {
  try {
    await load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('loadState() accepted the state');
}

describe('loadState(), load and fork share one validator', () => {
  it('refuses a state whose condition state the condition cannot take, changing nothing', async () => {
    const store = new MemoryCheckpointStore();
    const workflow = desk(store, { triage: [{ say: 'Hello, how can I help?' }] });
    const session = workflow.session('s-1');
    await session.run('hi');
    const saved = (await session.saveState()) as Record<string, unknown>;
    const before = await session.checkpoints();

    const error = await loadError(() =>
      session.loadState({ ...saved, termination: { count: -3 } }),
    );
    expect(error.message).toMatch(
      /^loadState\(\) of session "s-1": its termination-condition state does not fit/,
    );
    expect(error.path).toBe('termination');
    expect(await session.checkpoints()).toEqual(before);
    expect(await desk(store).session('s-1').saveState()).toEqual(saved);
  });

  it('refuses awaiting_input without a pending request, changing nothing', async () => {
    const store = new MemoryCheckpointStore();
    const workflow = desk(store, {
      triage: [{ handoff: 'billing' }],
      billing: [{ say: 'Which invoice?' }],
    });
    const session = workflow.session('s-2');
    await session.run('my invoice');
    const saved = (await session.saveState()) as Record<string, unknown>;
    expect(saved.status).toBe('awaiting_input');

    const error = await loadError(() => session.loadState({ ...saved, pendingRequest: null }));
    expect(error.message).toBe(
      'loadState() of session "s-2": the session awaits input but holds no pending request. ' +
        'Pass a value returned by saveState() of this workflow.',
    );
    expect(error.path).toBe('pendingRequest');
    const reloaded = desk(store).session('s-2');
    expect(await reloaded.saveState()).toEqual(saved);
    expect((await reloaded.info()).status).toBe('awaiting_input');
  });

  it('still loads a valid saved state into a fresh workflow', async () => {
    const store = new MemoryCheckpointStore();
    const first = desk(store, { triage: [{ say: 'Hello.' }] }).session('s-3');
    await first.run('hi');
    const saved = await first.saveState();
    const other = desk(new MemoryCheckpointStore()).session('s-3');
    await other.loadState(saved);
    expect(await other.saveState()).toEqual(saved);
  });
});
