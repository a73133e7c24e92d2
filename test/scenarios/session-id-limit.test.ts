import { describe, expect, it } from 'vitest';

import {
  ConfigError,
  HandoffBuilder,
  MemoryCheckpointStore,
  PostgresCheckpointStore,
} from '../../src/index.js';
import { FakeAgent } from '../support/fake-agent.js';

// Every checkpoint store takes session ids of at most 256 UTF-16 code units (issue 27 #16); a
// workflow with a store refuses a longer id at `session(id)`, before any store is asked.

function desk(store: MemoryCheckpointStore | PostgresCheckpointStore) {
  const agents = [new FakeAgent('triage', []), new FakeAgent('billing', [])];
  return new HandoffBuilder({ name: 'support', participants: agents })
    .coordinator('triage')
    .withCheckpointing(store)
    .build();
}

describe('session ids with a checkpoint store', () => {
  it('refuses an id over 256 characters at session(id) with a ConfigError naming the limit', () => {
    const id = 'x'.repeat(1_000_000);
    // A store that is never reached: the refusal comes before any connection.
    const unreachable = new PostgresCheckpointStore({
      connectionString: 'postgres://nobody@127.0.0.1:1/none',
    });
    for (const workflow of [desk(new MemoryCheckpointStore()), desk(unreachable)]) {
      const error = (() => {
        try {
          workflow.session(id);
          return new Error('accepted');
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).path).toBe('sessionId');
      expect((error as Error).message).toBe(
        `session(): the session id "${'x'.repeat(32)}…" is 1000000 characters long; checkpoint ` +
          'stores take ids of at most 256 characters (UTF-16 code units). Use a shorter id, e.g. ' +
          'a hash of this one.',
      );
    }
  });

  it('runs a session whose id has exactly 256 characters', async () => {
    const store = new MemoryCheckpointStore();
    const id = 'é'.repeat(256);
    await desk(store).session(id).info();
    expect(() => desk(store).session(`${id}!`)).toThrow(ConfigError);
    expect(await store.read(id)).toEqual([]);
  });
});
