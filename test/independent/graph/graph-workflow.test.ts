// Black-box suite for API.md §13 (graph workflows), written from API.md alone: it imports only the
// public surface.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import {
  Agent,
  ConfigError,
  FileCheckpointStore,
  GraphBuilder,
  MaxMessageTermination,
  MemoryCheckpointStore,
  type AgentMessage,
  type ChatAgent,
  ScriptedChatClient,
  type TaskResult,
  TextMentionTermination,
} from '../../../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** An agent whose model answers the given texts in order. */
function says(name: string, ...texts: string[]): Agent {
  return new Agent({ name, client: new ScriptedChatClient(texts.map((content) => ({ content }))) });
}

/** An agent that answers `<name>: <the latest message's text>` every time. */
function echo(name: string): Agent {
  return new Agent({
    name,
    client: new ScriptedChatClient((request) => {
      const last = request.messages[request.messages.length - 1];
      return { content: `${name} saw ${typeof last?.content === 'string' ? last.content : ''}` };
    }),
  });
}

const transcript = (messages: readonly AgentMessage[]) =>
  messages.map((m) => `${m.source}: ${'content' in m ? String(m.content) : ''}`);

describe('GraphBuilder (API.md §13)', () => {
  it('runs a chain and ends with "Digraph execution is complete", recording no StopMessage', async () => {
    const graph = new GraphBuilder({ name: 'chain' })
      .addNode(says('a', 'A1'))
      .addNode(says('b', 'B1'))
      .addEdge('a', 'b')
      .build();
    const result = await graph.run('go');
    expect(result.status).toBe('terminated');
    expect(result.stopReason).toBe('Digraph execution is complete');
    expect(transcript(result.messages)).toEqual(['user: go', 'a: A1', 'b: B1']);
    expect(result.messages.some((m) => m.type === 'StopMessage')).toBe(false);
  });

  it('loops on a string condition until the exit condition holds', async () => {
    const graph = new GraphBuilder({ name: 'loop' })
      .addNode(says('writer', 'draft 1', 'draft 2'))
      .addNode(says('critic', 'REVISE please', 'APPROVE'))
      .addNode(says('editor', 'edited'))
      .addEdge('writer', 'critic')
      .addEdge('critic', 'writer', { when: 'REVISE' })
      .addEdge('critic', 'editor', { when: 'APPROVE' })
      .setEntryPoint('writer')
      .build();
    const result = await graph.run('write');
    expect(transcript(result.messages)).toEqual([
      'user: write',
      'writer: draft 1',
      'critic: REVISE please',
      'writer: draft 2',
      'critic: APPROVE',
      'editor: edited',
    ]);
    expect(result.stopReason).toBe('Digraph execution is complete');
  });

  it('takes a predicate as the condition, given the source answer', async () => {
    const seen: string[] = [];
    const graph = new GraphBuilder({ name: 'pred' })
      .addNode(says('judge', 'score 9'))
      .addNode(says('high', 'celebrate'))
      .addNode(says('low', 'retry'))
      .addEdge('judge', 'high', {
        when: (message) => {
          seen.push(`${message.source}:${'content' in message ? String(message.content) : ''}`);
          return String('content' in message ? message.content : '').includes('9');
        },
      })
      .addEdge('judge', 'low', {
        when: (message) => !String('content' in message ? message.content : '').includes('9'),
      })
      .build();
    const result = await graph.run('judge it');
    expect(transcript(result.messages)).toEqual([
      'user: judge it',
      'judge: score 9',
      'high: celebrate',
    ]);
    expect(seen).toEqual(['judge:score 9']);
  });

  it('fans out and in: ready nodes run together, answers in addNode order, "all" waits for both', async () => {
    // b cannot answer until c's model has been called: run one after the other, this would hang.
    let cCalled!: () => void;
    const cStarted = new Promise<void>((resolve) => (cCalled = resolve));
    const b = new Agent({
      name: 'b',
      client: new ScriptedChatClient(async () => {
        await cStarted;
        return { content: 'B' };
      }),
    });
    const c = new Agent({
      name: 'c',
      client: new ScriptedChatClient(() => {
        cCalled();
        return { content: 'C' };
      }),
    });
    const d = echo('d');
    const graph = new GraphBuilder({ name: 'fan' })
      .addNode(says('a', 'A'))
      .addNode(b)
      .addNode(c)
      .addNode(d, { activation: 'all' })
      .addEdge('a', ['b', 'c'])
      .addEdge(['b', 'c'], 'd')
      .build();
    const result = await graph.run('start');
    expect(transcript(result.messages)).toEqual([
      'user: start',
      'a: A',
      'b: B',
      'c: C',
      // Another agent's answer reaches a model as a user turn that names it (API.md §20).
      'd: d saw [c]: C',
    ]);
  });

  it('runs an "any" node once per step however many of its edges fired', async () => {
    const graph = new GraphBuilder({ name: 'any' })
      .addNode(says('a', 'A'))
      .addNode(says('b', 'B'))
      .addNode(says('c', 'C'))
      .addNode(says('d', 'D1', 'D2'), { activation: 'any' })
      .addEdge('a', ['b', 'c'])
      .addEdge(['b', 'c'], 'd')
      .build();
    const result = await graph.run('go');
    expect(transcript(result.messages)).toEqual(['user: go', 'a: A', 'b: B', 'c: C', 'd: D1']);
  });

  it('starts at every node without an incoming edge when no entry point is set', async () => {
    const graph = new GraphBuilder({ name: 'two-roots' })
      .addNode(says('x', 'X'))
      .addNode(says('y', 'Y'))
      .addNode(says('z', 'Z'))
      .addEdge(['x', 'y'], 'z')
      .build();
    const result = await graph.run('go');
    expect(transcript(result.messages)).toEqual(['user: go', 'x: X', 'y: Y', 'z: Z']);
  });

  it('refuses bad graphs at build() with a ConfigError', () => {
    const fresh = () => new GraphBuilder({ name: 'bad' }).addNode(says('a')).addNode(says('b'));
    expect(() => fresh().addEdge('a', 'ghost').build()).toThrow(ConfigError);
    expect(() => fresh().addEdge('ghost', 'a').build()).toThrow(ConfigError);
    expect(() => fresh().addNode(says('a')).build()).toThrow(ConfigError);
    // Every node has an incoming edge: no entry point.
    expect(() => fresh().addEdge('a', 'b').addEdge('b', 'a').build()).toThrow(ConfigError);
    // A cycle nothing can leave, even with an entry point.
    expect(() => fresh().addEdge('a', 'b').addEdge('b', 'a').setEntryPoint('a').build()).toThrow(
      ConfigError,
    );
  });

  it('counts each node answer as a turn for maxTurns', async () => {
    const graph = new GraphBuilder({ name: 'capped' })
      .addNode(says('ping', 'p1', 'p2', 'p3'))
      .addNode(says('pong', 'q1', 'q2', 'q3'))
      .addEdge('ping', 'pong')
      .addEdge('pong', 'ping', { when: 'q' })
      .setEntryPoint('ping')
      .withMaxTurns(3)
      .build();
    const result = await graph.run('go');
    expect(result.status).toBe('terminated');
    expect(result.stopReason).toBe('Maximum number of turns 3 reached.');
    expect(transcript(result.messages)).toEqual(['user: go', 'ping: p1', 'pong: q1', 'ping: p2']);
  });

  it('stops on its termination condition, which wins over maxTurns on the same turn', async () => {
    const graph = new GraphBuilder({ name: 'cond' })
      .addNode(says('a', 'A', 'DONE'))
      .addNode(says('b', 'B'))
      .addEdge('a', 'b')
      .addEdge('b', 'a', { when: 'B' })
      .setEntryPoint('a')
      .withTerminationCondition(new TextMentionTermination('DONE'))
      .withMaxTurns(3)
      .build();
    const result = await graph.run('go');
    expect(result.stopReason).toBe("Text 'DONE' mentioned");
    // The third answer fires both the condition and maxTurns(3): the condition's reason wins.
    expect(transcript(result.messages)).toEqual(['user: go', 'a: A', 'b: B', 'a: DONE']);
  });

  it('starts again at the entry points on a new task, keeping the thread; reset() clears it', async () => {
    const graph = new GraphBuilder({ name: 'again' })
      .addNode(says('a', 'A1', 'A2'))
      .addNode(says('b', 'B1', 'B2'))
      .addEdge('a', 'b')
      .build();
    const session = graph.session('s');
    await session.run('one');
    const second = await session.run('two');
    expect(transcript(second.messages)).toEqual(['user: two', 'a: A2', 'b: B2']);
    expect(transcript(await session.messages())).toEqual([
      'user: one',
      'a: A1',
      'b: B1',
      'user: two',
      'a: A2',
      'b: B2',
    ]);
    await session.reset();
    expect(await session.messages()).toEqual([]);
  });

  it('keeps sessions apart and round-trips saveState/loadState', async () => {
    const graph = new GraphBuilder({ name: 'state' })
      .addNode(echo('a'))
      .addNode(echo('b'))
      .addEdge('a', 'b')
      .build();
    const one = graph.session('one');
    const two = graph.session('two');
    await Promise.all([one.run('first'), two.run('second')]);
    expect(transcript(await one.messages())).toEqual([
      'user: first',
      'a: a saw first',
      'b: b saw [a]: a saw first',
    ]);
    expect(transcript(await two.messages())[0]).toBe('user: second');
    const saved = await one.saveState();
    const copy = graph.session('copy');
    await copy.loadState(saved);
    expect(await copy.saveState()).toEqual(saved);
    expect(await copy.messages()).toEqual(await one.messages());
  });

  it('resumes from a checkpoint store in another workflow object, lists steps and forks', async () => {
    const store = new MemoryCheckpointStore();
    const build = () =>
      new GraphBuilder({ name: 'stored' })
        .addNode(says('a', 'A1', 'A2'))
        .addNode(says('b', 'B1', 'B2'))
        .addEdge('a', 'b')
        .withCheckpointing(store)
        .build();
    await build().session('s').run('one');
    const later = build();
    const resumed = later.session('s');
    expect(transcript(await resumed.messages())).toEqual(['user: one', 'a: A1', 'b: B1']);
    const steps = await resumed.checkpoints();
    expect(steps.length).toBeGreaterThanOrEqual(3);
    expect(steps.map((s) => s.step)).toEqual(steps.map((_, i) => i + 1));
    const inputStep = steps.find((s) => s.event === 'user_input')?.step as number;
    const fork = later.session('f', { from: { session: 's', step: inputStep } });
    expect(transcript(await fork.messages())).toEqual(['user: one']);
  });

  it('resumes from a FileCheckpointStore', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-graph-'));
    dirs.push(dir);
    const build = () =>
      new GraphBuilder({ name: 'filed' })
        .addNode(says('a', 'A1', 'A2'))
        .addNode(says('b', 'B1', 'B2'))
        .addEdge('a', 'b')
        .withCheckpointing(new FileCheckpointStore(dir))
        .build();
    await build().session('s').run('one');
    const again = await build().session('s').run('two');
    expect(transcript(again.messages)).toEqual(['user: two', 'a: A1', 'b: B1']);
  });

  it('draws itself as Mermaid with every node and edge', () => {
    const graph = new GraphBuilder({ name: 'drawn' })
      .addNode(says('writer'))
      .addNode(says('critic'))
      .addEdge('writer', 'critic')
      .addEdge('critic', 'writer', { when: 'REVISE' })
      .setEntryPoint('writer')
      .build();
    const text = graph.toMermaid();
    expect(text).toContain('writer');
    expect(text).toContain('critic');
    expect(text).toContain('REVISE');
  });

  it('streams the same messages it returns, with the TaskResult last', async () => {
    const graph = new GraphBuilder({ name: 'stream' })
      .addNode(says('a', 'A'))
      .addNode(says('b', 'B'))
      .addEdge('a', 'b')
      .build();
    const items: (AgentMessage | TaskResult)[] = [];
    for await (const item of graph.runStream('go')) items.push(item);
    const result = items[items.length - 1] as TaskResult;
    expect(result.type).toBe('TaskResult');
    expect(items.slice(0, -1)).toEqual(result.messages);
  });

  it('applies a MaxMessageTermination over node answers', async () => {
    const graph = new GraphBuilder({ name: 'max' })
      .addNode(says('a', 'A1', 'A2'))
      .addNode(says('b', 'B1', 'B2'))
      .addEdge('a', 'b')
      .addEdge('b', 'a', { when: 'B' })
      .setEntryPoint('a')
      .withTerminationCondition(new MaxMessageTermination(3))
      .build();
    const result = await graph.run('go');
    expect(result.stopReason).toBe(
      'Maximum number of messages 3 reached, current message count: 3',
    );
    expect(transcript(result.messages).slice(0, 3)).toEqual(['user: go', 'a: A1', 'b: B1']);
  });

  it('accepts any ChatAgent as a node', async () => {
    const plain: ChatAgent = {
      name: 'plain',
      description: 'answers with a fixed text',
      respond: async () => ({
        chatMessage: {
          type: 'TextMessage',
          id: 'fixed-id',
          source: 'plain',
          content: 'hello',
          createdAt: new Date().toISOString(),
          metadata: {},
        },
      }),
    };
    const graph = new GraphBuilder({ name: 'plain' }).addNode(plain).build();
    const result = await graph.run('hi');
    expect(transcript(result.messages)).toEqual(['user: hi', 'plain: hello']);
  });
});
