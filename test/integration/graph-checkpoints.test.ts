// A graph's sessions over every checkpoint store: a second workflow object (as another process
// would) resumes a run stopped between two steps, lists its checkpoints and forks it.
import { describe, expect, it } from 'vitest';

import {
  type ChatAgent,
  type CheckpointStore,
  GraphBuilder,
  messageToText,
  textMessage,
} from '../../src/index.js';
import {
  openFile,
  openMemory,
  openPostgres,
  openRedis,
  type OpenStores,
} from '../support/store-fixtures.js';

const node = (name: string): ChatAgent => ({
  name,
  description: name,
  respond: async (ctx) => ({
    chatMessage: textMessage({
      source: name,
      content: `${name}(${messageToText(ctx.newMessages.at(-1)!)})`,
    }),
  }),
});

function build(store: CheckpointStore) {
  const [a, b, c, d] = ['A', 'B', 'C', 'D'].map(node) as ChatAgent[];
  return new GraphBuilder({ name: 'fan' })
    .addNode(a!)
    .addNode(b!)
    .addNode(c!)
    .addNode(d!)
    .addEdge(a!, [b!, c!])
    .addEdge([b!, c!], d!)
    .withMaxTurns(1)
    .withCheckpointing(store)
    .build();
}

const lines = (messages: readonly { source: string }[]) =>
  messages.map((m) => `${m.source}: ${messageToText(m as never)}`);

const stores: [string, OpenStores][] = [
  ['memory', openMemory],
  ['file', openFile],
  ['postgres', openPostgres],
  ['redis', openRedis],
];

describe.each(stores)('a graph over the %s store', (_, open) => {
  it('resumes in another workflow object, lists checkpoints and forks', async () => {
    const fixture = await open();
    if (fixture === undefined) return;
    try {
      const first = build(fixture.a);
      const stopped = await first.session('g').run('go');
      expect(lines(stopped.messages)).toEqual(['user: go', 'A: A(go)']);
      expect(stopped.stopReason).toBe('Maximum number of turns 1 reached.');

      // withMaxTurns(1) lets one node answer per run: B now, C next (the branches of one step).
      const second = build(fixture.b);
      expect(lines((await second.session('g').run()).messages)).toEqual(['B: B(A(go))']);
      expect(lines((await second.session('g').run()).messages)).toEqual(['C: C(B(A(go)))']);
      const done = await second.session('g').run();
      expect(lines(done.messages)).toEqual(['D: D(C(B(A(go))))']);
      const complete = await second.session('g').run();
      expect(complete.stopReason).toBe('Digraph execution is complete');
      expect((await second.session('g').checkpoints()).map((s) => s.event)).toEqual([
        'user_input',
        'agent_response:A',
        'stop',
        'resume',
        'agent_response:B',
        'stop',
        'resume',
        'agent_response:C',
        'stop',
        'resume',
        'agent_response:D',
        'stop',
        'resume',
        'complete',
      ]);

      // Fork after A answered: the branches are still due in the copy.
      const fork = build(fixture.a).session('g-fork', { from: { session: 'g', step: 3 } });
      expect(lines((await fork.run()).messages)).toEqual(['B: B(A(go))']);
      expect(lines(await fork.messages())).toEqual(['user: go', 'A: A(go)', 'B: B(A(go))']);
      expect(lines(await first.session('g').messages())).toHaveLength(5);
    } finally {
      await fixture.close();
    }
  });
});
