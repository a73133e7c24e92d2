// A port of AutoGen's GraphFlow tests (python/packages/autogen-agentchat/tests/
// test_group_chat_graph.py) that fit API.md §13, with exact transcripts. Differences by design:
// no StopMessage is recorded when the graph completes (the stop reason says it), and nodes due
// together answer in `addNode` order, so the order AutoGen leaves open is exact here.
import { describe, expect, it } from 'vitest';

import {
  type ChatAgent,
  ConfigError,
  DIGRAPH_COMPLETE,
  GraphBuilder,
  MaxMessageTermination,
  MemoryCheckpointStore,
  messageToText,
  textMessage,
} from '../../src/index.js';
import { echoAgent, type Turn } from './teams-autogen-helpers.js';

/** AutoGen's ReplayChatCompletionClient behind an agent: answers `replies` in turn (shared). */
function replayAgents(replies: string[], ...names: string[]): ChatAgent[] {
  let next = 0;
  return names.map((name) => ({
    name,
    description: `decision agent ${name}`,
    respond: async () => {
      const content = replies[next++];
      if (content === undefined) throw new Error(`replay ran out at ${name}`);
      return { chatMessage: textMessage({ source: name, content }) };
    },
  }));
}

const lines = (messages: readonly { source: string }[]) =>
  messages.map((m) => `${m.source}: ${messageToText(m as never)}`);

describe('GraphFlow tests ported from AutoGen', () => {
  it('sequential execution A -> B -> C', async () => {
    const [a, b, c] = ['A', 'B', 'C'].map((n) => echoAgent(n));
    const flow = new GraphBuilder()
      .addNode(a as ChatAgent)
      .addNode(b as ChatAgent)
      .addNode(c as ChatAgent)
      .addEdge('A', 'B')
      .addEdge('B', 'C')
      .withTerminationCondition(new MaxMessageTermination(5))
      .build();
    const result = await flow.run('Hello from User');
    expect(lines(result.messages)).toEqual([
      'user: Hello from User',
      'A: Hello from User',
      'B: Hello from User',
      'C: Hello from User',
    ]);
    expect(result.status).toBe('terminated');
    expect(result.stopReason).toBe(DIGRAPH_COMPLETE);
    expect(result.stopReason).toBe('Digraph execution is complete');
    expect(result.messages.some((m) => m.type === 'StopMessage')).toBe(false);
  });

  it('parallel fan-out: B and C answer in one step, in addNode order', async () => {
    const turns: Turn[] = [];
    const [a, b, c] = ['A', 'B', 'C'].map((n) => echoAgent(n, turns)) as ChatAgent[];
    const flow = new GraphBuilder()
      .addNode(a!)
      .addNode(b!)
      .addNode(c!)
      .addEdge(a!, [b!, c!])
      .withTerminationCondition(new MaxMessageTermination(5))
      .withCheckpointing(new MemoryCheckpointStore())
      .build();
    const result = await flow.run('Start');
    expect(lines(result.messages)).toEqual(['user: Start', 'A: Start', 'B: Start', 'C: Start']);
    // Both saw the thread as it was when they became ready.
    expect(turns).toEqual([
      { agent: 'A', newMessages: ['Start'] },
      { agent: 'B', newMessages: ['Start', 'Start'] },
      { agent: 'C', newMessages: ['Start', 'Start'] },
    ]);
    const steps = (await flow.session('default').checkpoints()).map((s) => s.event);
    expect(steps).toEqual(['user_input', 'agent_response:A', 'agent_response:B,C', 'complete']);
  });

  it('parallel join "all": C waits for both A and B', async () => {
    const [a, b, c] = ['A', 'B', 'C'].map((n) => echoAgent(n)) as ChatAgent[];
    const flow = new GraphBuilder()
      .addNode(a!)
      .addNode(b!)
      .addNode(c!, { activation: 'all' })
      .addEdge([a!, b!], c!)
      .withTerminationCondition(new MaxMessageTermination(5))
      .build();
    const result = await flow.run('Go');
    expect(lines(result.messages)).toEqual(['user: Go', 'A: Go', 'B: Go', 'C: Go']);
    expect(result.stopReason).toBe(DIGRAPH_COMPLETE);
  });

  it('parallel join "any": C runs once although both edges fired in the same step', async () => {
    const [a, b, c] = ['A', 'B', 'C'].map((n) => echoAgent(n)) as ChatAgent[];
    const flow = new GraphBuilder()
      .addNode(a!)
      .addNode(b!)
      .addNode(c!, { activation: 'any' })
      .addEdge(a!, c!)
      .addEdge(b!, c!)
      .withTerminationCondition(new MaxMessageTermination(5))
      .build();
    const result = await flow.run('Start');
    expect(lines(result.messages)).toEqual(['user: Start', 'A: Start', 'B: Start', 'C: Start']);
  });

  it('multiple start nodes', async () => {
    const [a, b] = ['A', 'B'].map((n) => echoAgent(n)) as ChatAgent[];
    const result = await new GraphBuilder().addNode(a!).addNode(b!).build().run('Start');
    expect(lines(result.messages)).toEqual(['user: Start', 'A: Start', 'B: Start']);
  });

  it('disconnected graph: A and C, then B and D', async () => {
    const [a, b, c, d] = ['A', 'B', 'C', 'D'].map((n) => echoAgent(n)) as ChatAgent[];
    const flow = new GraphBuilder()
      .addNode(a!)
      .addNode(b!)
      .addNode(c!)
      .addNode(d!)
      .addEdge(a!, b!)
      .addEdge(c!, d!)
      .withTerminationCondition(new MaxMessageTermination(10))
      .withCheckpointing(new MemoryCheckpointStore())
      .build();
    const result = await flow.run('Go');
    expect(lines(result.messages)).toEqual(['user: Go', 'A: Go', 'C: Go', 'B: Go', 'D: Go']);
    const steps = (await flow.session('default').checkpoints()).map((s) => s.event);
    expect(steps).toEqual(['user_input', 'agent_response:A,C', 'agent_response:B,D', 'complete']);
  });

  it('conditional branch with strings and with predicates', async () => {
    const build = (yes: string | ((m: never) => boolean), no: typeof yes) => {
      const [a, b, c] = ['A', 'B', 'C'].map((n) => echoAgent(n)) as ChatAgent[];
      return new GraphBuilder()
        .addNode(a!)
        .addNode(b!, { activation: 'any' })
        .addNode(c!, { activation: 'any' })
        .addEdge(a!, b!, { when: yes as never })
        .addEdge(a!, c!, { when: no as never })
        .build();
    };
    const byText = await build('yes', 'no').run('Trigger yes');
    expect(lines(byText.messages)).toEqual([
      'user: Trigger yes',
      'A: Trigger yes',
      'B: Trigger yes',
    ]);
    const has = (word: string) => (m: never) => messageToText(m).includes(word);
    const byPredicate = await build(has('yes'), has('no')).run('Trigger no');
    expect(lines(byPredicate.messages)).toEqual([
      'user: Trigger no',
      'A: Trigger no',
      'C: Trigger no',
    ]);
  });

  it('loop with an exit condition', async () => {
    const a = echoAgent('A');
    const c = echoAgent('C');
    const [b] = replayAgents(['loop', 'loop', 'exit'], 'B');
    const flow = new GraphBuilder()
      .addNode(a)
      .addNode(b!)
      .addNode(c)
      .addEdge(a, b!)
      .addEdge(b!, c, { when: 'exit' })
      .addEdge(b!, a, { when: 'loop' })
      .setEntryPoint(a)
      .withTerminationCondition(new MaxMessageTermination(20))
      .build();
    const result = await flow.run('Start');
    expect(lines(result.messages)).toEqual([
      'user: Start',
      'A: Start',
      'B: loop',
      'A: loop',
      'B: loop',
      'A: loop',
      'B: exit',
      'C: Start',
    ]);
    expect(result.stopReason).toBe(DIGRAPH_COMPLETE);
  });

  it('loop with a self cycle', async () => {
    const a = echoAgent('A');
    const c = echoAgent('C');
    const [b] = replayAgents(['loop', 'loop', 'exit'], 'B');
    const flow = new GraphBuilder()
      .addNode(a)
      .addNode(b!)
      .addNode(c)
      .addEdge(a, b!)
      .addEdge(b!, c, { when: 'exit' })
      .addEdge(b!, b!, { when: 'loop' })
      .build();
    const result = await flow.run('Start');
    expect(lines(result.messages)).toEqual([
      'user: Start',
      'A: Start',
      'B: loop',
      'B: loop',
      'B: exit',
      'C: Start',
    ]);
  });

  it('loop with two cycles: O waits for B and C, then each loop back readies it alone', async () => {
    const [a, b, c, e] = ['A', 'B', 'C', 'E'].map((n) => echoAgent(n)) as ChatAgent[];
    const [o, x, y] = replayAgents(['to_x', 'to_o', 'to_y', 'to_o', 'exit'], 'O', 'X', 'Y');
    const flow = new GraphBuilder()
      .addNode(a!)
      .addNode(o!)
      .addNode(b!)
      .addNode(c!)
      .addNode(x!)
      .addNode(y!)
      .addNode(e!)
      .addEdge(a!, [b!, c!])
      .addEdge([b!, c!], o!)
      .addEdge(o!, x!, { when: 'to_x' })
      .addEdge(o!, y!, { when: 'to_y' })
      .addEdge(o!, e!, { when: 'exit' })
      .addEdge(x!, o!, { when: 'to_o' })
      .addEdge(y!, o!, { when: 'to_o' })
      .setEntryPoint(a!)
      .withTerminationCondition(new MaxMessageTermination(20))
      .build();
    const result = await flow.run('Start');
    expect(lines(result.messages)).toEqual([
      'user: Start',
      'A: Start',
      'B: Start',
      'C: Start',
      'O: to_x',
      'X: to_o',
      'O: to_y',
      'Y: to_o',
      'O: exit',
      'E: Start',
    ]);
  });

  it('chained join "any": D and E run once each', async () => {
    const [a, b, c, d, e] = ['A', 'B', 'C', 'D', 'E'].map((n) => echoAgent(n)) as ChatAgent[];
    const flow = new GraphBuilder()
      .addNode(a!)
      .addNode(b!)
      .addNode(c!)
      .addNode(d!, { activation: 'any' })
      .addNode(e!, { activation: 'any' })
      .addEdge(a!, [b!, c!])
      .addEdge([b!, c!], d!)
      .addEdge(d!, e!)
      .build();
    const result = await flow.run('Run chained parallel join-any');
    expect(result.messages.map((m) => m.source)).toEqual(['user', 'A', 'B', 'C', 'D', 'E']);
  });

  it('multiple conditional edges', async () => {
    const build = () => {
      const [a, b, c, d] = ['A', 'B', 'C', 'D'].map((n) => echoAgent(n)) as ChatAgent[];
      return new GraphBuilder()
        .addNode(a!)
        .addNode(b!)
        .addNode(c!)
        .addNode(d!)
        .addEdge(a!, b!, { when: 'apple' })
        .addEdge(a!, c!, { when: 'banana' })
        .addEdge(a!, d!, { when: (m) => messageToText(m).includes('cherry') })
        .build();
    };
    expect((await build().run('banana')).messages.map((m) => m.source)).toEqual(['user', 'A', 'C']);
    expect((await build().run('cherry')).messages.map((m) => m.source)).toEqual(['user', 'A', 'D']);
  });

  it('build() rejects a cycle without an exit condition, naming it', () => {
    const [a, b, c, d, e] = ['A', 'B', 'C', 'D', 'E'].map((n) => echoAgent(n)) as ChatAgent[];
    const builder = new GraphBuilder({ name: 'g' })
      .addNode(a!)
      .addNode(b!)
      .addNode(c!)
      .addNode(d!)
      .addNode(e!)
      .addEdge(a!, b!)
      .addEdge(b!, c!)
      .addEdge(c!, a!)
      .addEdge(d!, e!);
    expect(() => builder.build()).toThrow(
      new ConfigError(
        'GraphBuilder "g": the cycle A -> B -> C -> A has no conditional edge, so it can never be left. ' +
          'Give one of its edges a `when` condition.',
        { path: 'edges' },
      ),
    );
    builder.addEdge(c!, d!);
    expect(() => builder.build()).toThrow(ConfigError);
  });

  it('build() rejects a graph without a start node', () => {
    const [a, b] = ['A', 'B'].map((n) => echoAgent(n)) as ChatAgent[];
    const builder = new GraphBuilder({ name: 'g' })
      .addNode(a!)
      .addNode(b!)
      .addEdge(a!, b!)
      .addEdge(b!, a!, { when: 'again' });
    expect(() => builder.build()).toThrow(
      new ConfigError(
        'GraphBuilder "g" has no entry point: every node has an incoming edge. Call setEntryPoint() with the node that starts.',
        { path: 'entryPoints' },
      ),
    );
    expect(builder.setEntryPoint(a!).build().entryPoints).toEqual(['A']);
  });
});
