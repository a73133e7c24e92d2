// Issue 28: a stored step is read back as the typed step it records and replayed by the reducer
// that applied it, so a record that no step could have written is refused by name.
import { crc32 } from 'node:zlib';

import { describe, expect, it } from 'vitest';

import {
  type ChatAgent,
  CheckpointError,
  type CheckpointRecord,
  MemoryCheckpointStore,
  RoundRobinGroupChat,
  textMessage,
} from '../../src/index.js';

function echo(name: string): ChatAgent {
  return {
    name,
    description: name,
    respond: async () => ({ chatMessage: textMessage({ source: name, content: `${name} here` }) }),
  };
}

const team = (store: MemoryCheckpointStore) =>
  new RoundRobinGroupChat([echo('a'), echo('b')], { maxTurns: 2, checkpointStore: store });

/** The records of session `id`, the last one's body (a format 3 list) edited by `edit`. */
async function forged(edit: (body: unknown[]) => void): Promise<MemoryCheckpointStore> {
  const store = new MemoryCheckpointStore();
  await team(store).session('typed').run('go');
  const records = await store.read('typed', { from: 'start' });
  const copy = new MemoryCheckpointStore();
  for (const [i, record] of records.entries()) {
    let body = record.data.slice(8);
    if (i === records.length - 1) {
      const parsed = JSON.parse(body) as unknown[];
      edit(parsed);
      body = JSON.stringify(parsed);
    }
    const seal = crc32(`typed\n${record.step}\n${body}`).toString(16).padStart(8, '0');
    const sealed: CheckpointRecord = { ...record, data: seal + body };
    expect(await copy.append('typed', sealed)).toBe(true);
  }
  return copy;
}

async function loadError(store: MemoryCheckpointStore): Promise<CheckpointError> {
  const error = await team(store)
    .session('typed')
    .info()
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(CheckpointError);
  return error as CheckpointError;
}

describe('a stored step', () => {
  it('loads back to the state the run made, through the reducer that made it (control)', async () => {
    const store = new MemoryCheckpointStore();
    const run = team(store).session('typed');
    await run.run('go');
    await run.run('again');
    expect(await team(store).session('typed').saveState()).toEqual(await run.saveState());
    const resealed = await forged(() => {});
    expect((await team(resealed).session('typed').info()).step).toBe(4);
  });

  it('with an event no step writes is refused by name', async () => {
    const error = await loadError(await forged((body) => (body[3] = 'handoff:b')));
    expect(error.message).toContain('a step record has the event "handoff:b", which no step makes');
  });

  it('with a bookmark that is no thread position is refused by name', async () => {
    const error = await loadError(
      await forged((body) => {
        body[6] = { b: 'end' };
      }),
    );
    expect(error.message).toContain(
      'a step record moves the bookmark of "b" to "end", which is no thread position',
    );
  });

  it('with a field no step replaces is refused by name', async () => {
    const error = await loadError(
      await forged((body) => {
        body[5] = { ...(body[5] as object), x: 1 };
      }),
    );
    expect(error.message).toContain('a step record replaces ["f.x"], which no step does');
  });
});
