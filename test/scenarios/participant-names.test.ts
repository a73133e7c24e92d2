import { describe, expect, it } from 'vitest';

import {
  Agent,
  type CheckpointStore,
  ConfigError,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
} from '../../src/index.js';
import { FakeAgent } from '../support/fake-agent.js';

/** Names API.md allows that are also keys of every JavaScript object. */
const OBJECT_KEYS = ['constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

function desk(store: CheckpointStore, coordinator: string, specialist: string) {
  return new HandoffBuilder({
    name: 'support',
    participants: [
      new FakeAgent(coordinator, [{ handoff: specialist }, { say: 'Anything else?' }]),
      new FakeAgent(specialist, [{ say: 'Which invoice?' }, { say: 'Done.' }]),
    ],
  })
    .coordinator(coordinator)
    .withUserReplyRouting('last_agent')
    .withCheckpointing(store)
    .build();
}

describe('participants named like Object.prototype members', () => {
  it.each(
    OBJECT_KEYS.map((name, i) => [name, OBJECT_KEYS[(i + 1) % OBJECT_KEYS.length] as string]),
  )(
    '%s and %s: sessions run, pause, resume in a fresh workflow object and load again',
    async (coordinator, specialist) => {
      const store = new MemoryCheckpointStore();
      const first = desk(store, coordinator, specialist).session('s');
      const paused = await first.run('my invoice');
      expect(paused.pendingRequest?.agent).toBe(specialist);

      const second = desk(store, coordinator, specialist).session('s');
      expect(await second.messages()).toEqual(await first.messages());
      const reply = await second.run('INV-1');
      expect(reply.messages.map((m) => m.source)).toEqual(['user', specialist, specialist]);
      expect(await desk(store, coordinator, specialist).session('s').messages()).toEqual(
        await second.messages(),
      );
    },
  );

  it('refuses __proto__, which the name rule of API.md does not allow, with a ConfigError', () => {
    expect(() => new Agent({ name: '__proto__', client: new ScriptedChatClient([]) })).toThrow(
      ConfigError,
    );
  });
});
