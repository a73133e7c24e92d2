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
