// Issue 28: an orchestration's progress has a schema, and the one validator uses it. A graph
// session's progress that the validator accepted used to crash the next run with a TypeError
// (`{ready: 'a', fired: {}}`: `ready` is not a list); now such a state is refused like any other
// bad state — `ConfigError` from `loadState()`, `CheckpointError` from a stored log.
import { describe, expect, it } from 'vitest';

import {
  type ChatAgent,
  CheckpointError,
  type CheckpointRecord,
  ConfigError,
  GraphBuilder,
  HandoffBuilder,
  MemoryCheckpointStore,
  RoundRobinGroupChat,
  textMessage,
} from '../../src/index.js';

function echo(name: string): ChatAgent {
  return {
    name,
    description: name,
    respond: async (ctx) => ({
      chatMessage: textMessage({
        source: name,
        content: `${name} saw ${ctx.newMessages.map((m) => m.source).join(',')}`,
      }),
    }),
  };
}

/** a → b, stopped after a's answer: the progress says b is due. */
function graph(store: MemoryCheckpointStore) {
  return new GraphBuilder({ name: 'progress-graph' })
    .addNode(echo('a'))
    .addNode(echo('b'))
    .addEdge('a', 'b')
    .withMaxTurns(1)
    .withCheckpointing(store)
    .build();
}

async function loadError(load: () => Promise<void>): Promise<ConfigError> {
  const error = await load().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe("a graph session's progress", () => {
  it('loadState() refuses a progress whose `ready` is not a list, and the session still runs', async () => {
    const store = new MemoryCheckpointStore();
    const session = graph(store).session('progress-1');
    await session.run('go');
    const saved = (await session.saveState()) as Record<string, unknown>;
    expect(saved.progress).toEqual({ ready: ['b'], fired: {} });

    const error = await loadError(() =>
      session.loadState({ ...saved, progress: { ready: 'a', fired: {} } }),
    );
    expect(error.message).toBe(
      'loadState() of session "progress-1": the state is invalid at progress.ready: ' +
        'Invalid input: expected array, received string. ' +
        'Pass a value returned by saveState() of this workflow.',
    );
    expect(error.path).toBe('progress.ready');
    const next = await session.run();
    expect(next.messages.map((m) => m.source)).toEqual(['b']);
  });

  it.each([
    ['a node the graph does not have', { ready: ['x'], fired: {} }, 'progress.ready[0]'],
    ['a key a progress does not have', { ready: [], fired: {}, next: ['b'] }, 'progress.next'],
    ['fired sources that are not a list', { ready: [], fired: { b: 'a' } }, 'progress.fired.b'],
    ['paused that is not a list', { ready: ['b'], fired: {}, paused: 3 }, 'progress.paused'],
  ])('loadState() refuses %s', async (_what, progress, path) => {
    const store = new MemoryCheckpointStore();
    const session = graph(store).session('progress-2');
    await session.run('go');
    const saved = (await session.saveState()) as Record<string, unknown>;
    const error = await loadError(() => session.loadState({ ...saved, progress }));
    expect(error.path).toBe(path);
    if (path === 'progress.ready[0]') {
      expect(error.message).toContain('at progress.ready[0]: "x" is not a node of this graph.');
    }
  });

  it('a stored step that writes such a progress is refused by name when the log loads', async () => {
    const store = new MemoryCheckpointStore();
    await graph(store).session('progress-3').run('go');
    const records = await store.read('progress-3', { from: 'start' });
    const last = records.at(-1) as CheckpointRecord;
    const forged = JSON.parse(last.data.slice(8)) as unknown[];
    (forged[5] as Record<string, unknown>).g = { ready: 'a', fired: {} };
    const { crc32 } = await import('node:zlib');
    const body = JSON.stringify(forged);
    const data = crc32(`progress-4\n${last.step}\n${body}`).toString(16).padStart(8, '0') + body;
    const copy = new MemoryCheckpointStore();
    for (const record of records.slice(0, -1)) {
      const first = record.step === 1;
      const b = record.data.slice(8);
      const sealed = first ? b.replace('"session":"progress-3"', '"session":"progress-4"') : b;
      await copy.append('progress-4', {
        ...record,
        data: crc32(`progress-4\n${record.step}\n${sealed}`).toString(16).padStart(8, '0') + sealed,
      });
    }
    await copy.append('progress-4', { ...last, data });
    const error = await graph(copy)
      .session('progress-4')
      .run()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as Error).message).toContain(
      'the state it leads to is wrong: the state is invalid at progress.ready',
    );
  });
});

describe('orchestrations that keep no progress', () => {
  it.each([
    [
      'a handoff workflow',
      () =>
        new HandoffBuilder({ name: 'np', participants: [echo('t'), echo('u')] })
          .coordinator('t')
          .build(),
    ],
    ['a round robin', () => new RoundRobinGroupChat([echo('t'), echo('u')], { maxTurns: 1 })],
  ])('%s refuses a progress in a saved state', async (_what, make) => {
    const workflow = make();
    await workflow.run('go');
    const saved = (await workflow.saveState()) as Record<string, unknown>;
    expect(saved.progress).toBeNull();
    const error = await loadError(() =>
      workflow.loadState({ ...saved, progress: { ready: 'a', fired: {} } }),
    );
    expect(error.path).toBe('progress');
  });
});
