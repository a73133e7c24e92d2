import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  asAgent,
  type ChatAgent,
  GraphBuilder,
  RoundRobinGroupChat,
  SelectorGroupChat,
  Swarm,
  textMessage,
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

/** A plain ChatAgent (no Agent constructor checks its name). */
function plain(name: string): ChatAgent {
  return {
    name,
    description: name,
    respond: async () => ({ chatMessage: textMessage({ source: name, content: 'hi' }) }),
  };
}

const RULE =
  '/^[A-Za-z][A-Za-z0-9_-]{0,63}$/ (a letter, then up to 63 letters, digits, "_" or "-"). ' +
  'Rename the agent.';

describe('every orchestration checks participant names with the rule of API.md §4', () => {
  const ok = plain('desk');
  const cases: [string, (bad: ChatAgent) => unknown, string][] = [
    [
      'HandoffBuilder',
      (bad) =>
        new HandoffBuilder({ name: 'support', participants: [ok, bad] }).coordinator(ok).build(),
      'HandoffBuilder "support"',
    ],
    ['RoundRobinGroupChat', (bad) => new RoundRobinGroupChat([ok, bad]), 'RoundRobinGroupChat'],
    [
      'SelectorGroupChat',
      (bad) => new SelectorGroupChat([ok, bad], { selectorFunc: () => 'desk' }),
      'SelectorGroupChat',
    ],
    ['Swarm', (bad) => new Swarm([ok, bad]), 'Swarm'],
    [
      'GraphBuilder',
      (bad) => new GraphBuilder({ name: 'review' }).addNode(ok).addNode(bad).build(),
      'GraphBuilder "review"',
    ],
    ['asAgent', (bad) => asAgent(new RoundRobinGroupChat([ok]), { name: bad.name }), 'asAgent()'],
  ];
  it.each(
    cases.flatMap(([what, make, owner]) =>
      ['__proto__', 'c++', ''].map((n) => [what, n, make, owner] as const),
    ),
  )(
    '%s refuses %j with a ConfigError naming the agent and the rule',
    (_what, name, make, owner) => {
      let thrown: unknown;
      try {
        make(plain(name));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as Error).message).toBe(
        `${owner}: agent name ${JSON.stringify(name)} does not match ${RULE}`,
      );
    },
  );

  it('refuses a resolver agent with a bad name', () => {
    const build = () =>
      new HandoffBuilder({ name: 'support', participants: [ok] })
        .coordinator(ok)
        .withResolver({
          agent: plain('__proto__'),
          schema: z.object({ to: z.string() }),
          resolve: () => null,
        })
        .build();
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(
      `HandoffBuilder "support": withResolver(): agent name "__proto__" does not match ${RULE}`,
    );
  });
});
