// Hostile names: a ChatAgent named `__proto__` or `c++` is refused at build by every orchestration.
import { describe, expect, it } from 'vitest';

import {
  type ChatAgent,
  ConfigError,
  GraphBuilder,
  HandoffBuilder,
  RoundRobinGroupChat,
  SelectorGroupChat,
  Swarm,
  textMessage,
} from '../../../src/index.js';

const named = (name: string): ChatAgent => ({
  name,
  description: `${name} agent`,
  respond: async () => ({ chatMessage: textMessage({ source: name, content: 'hi' }) }),
});

const builds: [string, (bad: ChatAgent, ok: ChatAgent) => unknown][] = [
  [
    'HandoffBuilder',
    (bad, ok) => new HandoffBuilder({ participants: [ok, bad] }).coordinator(ok).build(),
  ],
  [
    'HandoffBuilder (as coordinator)',
    (bad, ok) => new HandoffBuilder({ participants: [bad, ok] }).coordinator(bad).build(),
  ],
  ['RoundRobinGroupChat', (bad, ok) => new RoundRobinGroupChat([ok, bad])],
  [
    'SelectorGroupChat',
    (bad, ok) => new SelectorGroupChat([ok, bad], { selectorFunc: () => ok.name }),
  ],
  ['Swarm', (bad, ok) => new Swarm([ok, bad])],
  [
    'GraphBuilder',
    (bad, ok) => new GraphBuilder({ name: 'g' }).addNode(ok).addNode(bad).addEdge(ok, bad).build(),
  ],
];

describe('names that are valid but shadow Object.prototype members work normally', () => {
  const runs: [
    string,
    (
      agent: ChatAgent,
      ok: ChatAgent,
    ) => { run(task: string): Promise<{ status: string; messages: { source: string }[] }> },
  ][] = [
    [
      'HandoffBuilder',
      (a, ok) => new HandoffBuilder({ participants: [a, ok] }).coordinator(a).build(),
    ],
    ['RoundRobinGroupChat', (a, ok) => new RoundRobinGroupChat([a, ok], { maxTurns: 2 })],
    [
      'SelectorGroupChat',
      (a, ok) => new SelectorGroupChat([a, ok], { selectorFunc: () => a.name, maxTurns: 2 }),
    ],
    ['Swarm', (a, ok) => new Swarm([a, ok], { maxTurns: 2 })],
    [
      'GraphBuilder',
      (a, ok) => new GraphBuilder({ name: 'g' }).addNode(a).addNode(ok).addEdge(a, ok).build(),
    ],
  ];
  for (const name of ['constructor', 'hasOwnProperty', 'toString', 'valueOf']) {
    for (const [what, build] of runs) {
      it(`${what}: an agent named ${name} answers`, async () => {
        const run = await build(named(name), named('okay')).run('go');
        expect(run.messages.map((m) => m.source)).toContain(name);
      }, 10_000);
    }
  }
});

describe('hostile names, thrown at construction/build (not later)', () => {
  for (const name of ['__proto__', 'c++', '', 'a b', 'x'.repeat(65)]) {
    for (const [what, build] of builds) {
      it(`${what}: ${name} throws before any run`, () => {
        expect(() => build(named(name), named('okay'))).toThrow(ConfigError);
      });
    }
  }
});

describe('string references to names that exist only on Object.prototype', () => {
  const a = named('alpha');
  const b = named('beta');
  for (const ghost of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    it(`${ghost}: coordinator / addHandoff / addEdge / setEntryPoint by that name are ConfigErrors`, () => {
      const attempts: [string, () => unknown][] = [
        [
          'coordinator',
          () => new HandoffBuilder({ participants: [a, b] }).coordinator(ghost).build(),
        ],
        [
          'addHandoff source',
          () =>
            new HandoffBuilder({ participants: [a, b] })
              .coordinator(a)
              .addHandoff(ghost, [b])
              .build(),
        ],
        [
          'addHandoff target',
          () =>
            new HandoffBuilder({ participants: [a, b] })
              .coordinator(a)
              .addHandoff(b, [ghost])
              .build(),
        ],
        [
          'addEdge',
          () => new GraphBuilder({ name: 'g' }).addNode(a).addNode(b).addEdge(ghost, b).build(),
        ],
        [
          'setEntryPoint',
          () =>
            new GraphBuilder({ name: 'g' })
              .addNode(a)
              .addNode(b)
              .addEdge(a, b)
              .setEntryPoint(ghost)
              .build(),
        ],
      ];
      for (const [what, attempt] of attempts) {
        expect(attempt, what).toThrow(ConfigError);
      }
    });

    it(`${ghost}: a Swarm handoff to that name from outside is refused with an Error naming it`, async () => {
      const { handoffMessage } = await import('../../../src/index.js');
      const swarm = new Swarm([a, b], { maxTurns: 1 });
      const error = await swarm
        .run(handoffMessage({ source: 'user', target: ghost, content: 'go' }))
        .then(
          (r): unknown => r,
          (e: unknown) => e,
        );
      const status = (error as { status?: string }).status;
      if (status === undefined) {
        expect(error).toBeInstanceOf(Error);
        expect((error as Error).message).toContain(ghost);
      } else {
        // Accepted as a plain task: the first participant answered, nothing resolved to a prototype member.
        expect(
          (error as { messages: { source: string }[] }).messages.map((m) => m.source),
        ).toContain('alpha');
      }
    });
  }
});
