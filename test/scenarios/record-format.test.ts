import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { type CheckpointRecord, MemoryCheckpointStore } from '../../src/index.js';
import {
  recordFormatDesk,
  STEPS_AFTER_TWO_RUNS,
  THREAD_AFTER_TWO_RUNS,
} from '../support/record-format-desk.js';

interface Fixture {
  readonly session: string;
  readonly records: CheckpointRecord[];
}

// Step logs written by earlier versions of Baton: format 1 (patches with paths, ISO times) and
// format 2 (`{"v":2,"s":…}` records), each two runs of the same desk.
const fixtures = ['step-log-v1.json', 'step-log-v2.json'].map(
  (name) =>
    [
      name,
      JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures', name), 'utf8')) as Fixture,
    ] as const,
);

const texts = (messages: readonly { source: string; type: string }[]) =>
  messages.map((m) => `${m.type} ${m.source}`);

async function storeWith(fixture: Fixture): Promise<MemoryCheckpointStore> {
  const store = new MemoryCheckpointStore();
  for (const record of fixture.records) {
    expect(await store.append(fixture.session, record)).toBe(true);
  }
  return store;
}

describe.each(fixtures)('step records of an earlier format (%s)', (_name, fixture) => {
  it('still load: the thread, the pause, the step log', async () => {
    const desk = recordFormatDesk(await storeWith(fixture));
    const session = desk.session(fixture.session);
    expect(texts(await session.messages())).toEqual(THREAD_AFTER_TWO_RUNS);
    expect(await session.info()).toMatchObject({
      status: 'awaiting_input',
      step: 6,
      pendingRequest: { agent: 'billing', prompt: 'INV-1 refunded.' },
    });
    expect((await session.checkpoints()).map((c) => `${c.step} ${c.event}`)).toEqual(
      STEPS_AFTER_TWO_RUNS,
    );
  });

  it('go on with new records after the old ones, and the mixed log loads again', async () => {
    const store = await storeWith(fixture);
    const first = recordFormatDesk(store);
    // The fixture's scripted models answered twice each; this desk's answer again from the start.
    const result = await first.session(fixture.session).run('thanks');
    expect(result.status).toBe('awaiting_input');
    const records = await store.read(fixture.session);
    expect(records.length).toBeGreaterThan(fixture.records.length);
    expect(records.slice(0, fixture.records.length)).toEqual(fixture.records);
    const again = recordFormatDesk(store).session(fixture.session);
    expect(await again.messages()).toEqual(await first.session(fixture.session).messages());
    expect((await again.info()).step).toBe(records.length);
  });
});
