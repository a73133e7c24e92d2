// GraphBuilder (API.md §13) as a Runnable: concurrency, turns, new tasks, sessions and state,
// streaming, approvals, guardrails, the Mermaid drawing and build() errors.
import { describe, expect, it } from 'vitest';

import {
  Agent,
  type AgentContext,
  approve,
  type ChatAgent,
  ConfigError,
  GraphBuilder,
  guardrail,
  messageToText,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  asAgent,
  textMessage,
} from '../../src/index.js';
import { calls, deskTools, lines as typed } from './approvals-helpers.js';

/** An agent answering `name(last new message)`, logging what it saw. */
function node(name: string, log: string[] = [], say?: (ctx: AgentContext) => string): ChatAgent {
  return {
    name,
    description: name,
    respond: async (ctx) => {
      log.push(`${name} saw ${ctx.conversation.length}`);
      const text = say?.(ctx) ?? `${name}(${messageToText(ctx.newMessages.at(-1)!)})`;
      return { chatMessage: textMessage({ source: name, content: text }) };
    },
  };
}

const lines = (messages: readonly { source: string }[]) =>
  messages.map((m) => `${m.source}: ${messageToText(m as never)}`);

describe('GraphBuilder', () => {
  it('runs the nodes due together concurrently, each on the thread as it was', async () => {
    // B and C each wait until both have started: run one after the other, this never settles.
    const started: string[] = [];
    let release!: () => void;
    const both = new Promise<void>((resolve) => (release = resolve));
    const gated = (name: string): ChatAgent => ({
      name,
      description: name,
      respond: async (ctx) => {
        started.push(`${name}@${ctx.conversation.length}`);
        if (started.length === 2) release();
        await both;
        return { chatMessage: textMessage({ source: name, content: `${name} done` }) };
      },
    });
    const a = node('A');
    const flow = new GraphBuilder()
      .addNode(a)
      .addNode(gated('B'))
      .addNode(gated('C'))
      .addEdge(a, ['B', 'C'])
      .build();
    const result = await flow.run('go');
    expect(started.sort()).toEqual(['B@2', 'C@2']);
    expect(lines(result.messages)).toEqual(['user: go', 'A: A(go)', 'B: B done', 'C: C done']);
  });

  it('counts each node answer as a turn, and a run without a task goes on with the due nodes', async () => {
    const [a, b, c, d] = ['A', 'B', 'C', 'D'].map((n) => node(n));
    const flow = new GraphBuilder()
      .addNode(a!)
      .addNode(b!)
      .addNode(c!)
      .addNode(d!)
      .addEdge(a!, [b!, c!, d!])
      .withMaxTurns(2)
      .build();
    const first = await flow.run('go');
    expect(lines(first.messages)).toEqual(['user: go', 'A: A(go)', 'B: B(A(go))']);
    expect(first.stopReason).toBe('Maximum number of turns 2 reached.');
    const second = await flow.run();
    expect(lines(second.messages)).toEqual(['C: C(B(A(go)))', 'D: D(B(A(go)))']);
    expect(second.stopReason).toBe('Maximum number of turns 2 reached.');
    const third = await flow.run();
    expect(third.messages).toEqual([]);
    expect(third.stopReason).toBe('Digraph execution is complete');
  });

  it('a new task after completion starts again at the entry points with the thread kept', async () => {
    const log: string[] = [];
    const a = node('A', log);
    const b = node('B', log);
    const flow = new GraphBuilder().addNode(a).addNode(b).addEdge(a, b).build();
    await flow.run('one');
    const again = await flow.run('two');
    expect(lines(again.messages)).toEqual(['user: two', 'A: A(two)', 'B: B(A(two))']);
    expect(log).toEqual(['A saw 1', 'B saw 2', 'A saw 4', 'B saw 5']);
    expect(lines(await flow.session('default').messages())).toHaveLength(6);
    const idle = await flow.run();
    expect(idle.messages).toEqual([]);
    expect(idle.stopReason).toBe('Digraph execution is complete');
    await flow.reset();
    expect(await flow.session('default').messages()).toEqual([]);
  });

  it('saveState() in the middle of a run resumes in another workflow object', async () => {
    const build = () => {
      const [a, b, c] = ['A', 'B', 'C'].map((n) => node(n));
      return new GraphBuilder()
        .addNode(a!)
        .addNode(b!)
        .addNode(c!)
        .addEdge(a!, b!)
        .addEdge(b!, c!)
        .withMaxTurns(1)
        .build();
    };
    const first = build();
    await first.run('go');
    const saved = await first.saveState();
    const second = build();
    await second.loadState(saved);
    const rest = await second.run();
    expect(lines(rest.messages)).toEqual(['B: B(A(go))']);
    expect(lines((await second.run()).messages)).toEqual(['C: C(B(A(go)))']);
    expect((await second.run()).stopReason).toBe('Digraph execution is complete');
  });

  it('keeps sessions apart', async () => {
    const [a, b] = ['A', 'B'].map((n) => node(n));
    const flow = new GraphBuilder().addNode(a!).addNode(b!).addEdge(a!, b!).build();
    const [x, y] = await Promise.all([flow.session('x').run('ex'), flow.session('y').run('why')]);
    expect(lines(x.messages)).toEqual(['user: ex', 'A: A(ex)', 'B: B(A(ex))']);
    expect(lines(y.messages)).toEqual(['user: why', 'A: A(why)', 'B: B(A(why))']);
  });

  it('a node paused for approval pauses the graph; its peer answer is kept once', async () => {
    const tools = deskTools();
    const billing = new Agent({
      name: 'billing',
      client: new ScriptedChatClient([
        calls(['c1', 'refund', { invoiceId: 'INV-1' }]),
        scriptedText('Refunded.'),
      ]),
      tools: [tools.refund],
    });
    const notes = node('notes');
    const intake = node('intake');
    const summary = node('summary', [], (ctx) => `summary of ${ctx.newMessages.length}`);
    const flow = new GraphBuilder()
      .addNode(intake)
      .addNode(billing)
      .addNode(notes)
      .addNode(summary)
      .addEdge(intake, [billing, notes])
      .addEdge([billing, notes], summary)
      .build();
    const paused = await flow.run('refund INV-1');
    expect(paused.status).toBe('awaiting_input');
    expect(paused.pendingRequest?.kind).toBe('approval');
    expect(paused.messages.map((m) => `${m.type}(${m.source})`)).toEqual([
      'TextMessage(user)',
      'TextMessage(intake)',
      'TextMessage(notes)',
      'ToolCallRequestEvent(billing)',
      'ToolApprovalRequestEvent(billing)',
    ]);
    const done = await flow.run(approve('c1'));
    expect(typed(done.messages)).toEqual([
      'ToolApprovalResponseEvent(user): Approved call c1',
      'ToolCallExecutionEvent(billing): refund: Refunded INV-1.',
      'ToolCallSummaryMessage(billing): Refunded INV-1.',
      'TextMessage(summary): summary of 4',
    ]);
    expect(tools.runs).toEqual(['refund:INV-1@c1']);
    expect(done.stopReason).toBe('Digraph execution is complete');
    const thread = await flow.session('default').messages();
    expect(thread.filter((m) => m.source === 'notes')).toHaveLength(1);
  });

  it('an output guardrail that trips on one branch keeps the other answer and stops', async () => {
    const noSecrets = guardrail({
      name: 'no_secrets',
      check: ({ text }) => ({ tripwire: text.includes('secret'), info: 'a secret' }),
    });
    const a = node('A');
    const b = node('B', [], () => 'the secret is 42');
    const c = node('C');
    const d = node('D');
    const flow = new GraphBuilder()
      .addNode(a)
      .addNode(b)
      .addNode(c)
      .addNode(d)
      .addEdge(a, [b, c])
      .addEdge(c, d)
      .withGuardrails({ output: [noSecrets] })
      .build();
    const result = await flow.run('go');
    expect(result.status).toBe('terminated');
    expect(result.stopReason).toBe('Guardrail "no_secrets" tripped: a secret');
    expect(result.messages.map((m) => `${m.type}(${m.source})`)).toEqual([
      'TextMessage(user)',
      'TextMessage(A)',
      'GuardrailTrippedEvent(no_secrets)',
      'TextMessage(C)',
    ]);
  });

  it('takes guardrails as the option API.md §10 names for graphs, like withGuardrails()', async () => {
    const noSecrets = guardrail({
      name: 'no_secrets',
      check: ({ text }) => ({ tripwire: text.includes('secret'), info: 'a secret' }),
    });
    const a = node('A');
    const b = node('B', [], () => 'the secret is 42');
    const flow = new GraphBuilder({ name: 'guarded', guardrails: { output: [noSecrets] } })
      .addNode(a)
      .addNode(b)
      .addEdge(a, b)
      .build();
    const result = await flow.run('go');
    expect(result.stopReason).toBe('Guardrail "no_secrets" tripped: a secret');
    expect(result.messages.map((m) => `${m.type}(${m.source})`)).toEqual([
      'TextMessage(user)',
      'TextMessage(A)',
      'GuardrailTrippedEvent(no_secrets)',
    ]);
    expect(() => new GraphBuilder({ guardrails: { input: 'no' as never } })).toThrow(
      'guardrails.input must be an array',
    );
  });

  it('asAgent(): a nested team is a node; its messages stream, its last answer is the reply', async () => {
    const team = new RoundRobinGroupChat([node('drafter'), node('checker')], { maxTurns: 2 });
    const nested = asAgent(team, { name: 'research', description: 'A nested team.' });
    const a = node('A');
    const flow = new GraphBuilder().addNode(a).addNode(nested).addEdge(a, nested).build();
    const streamed: string[] = [];
    for await (const item of flow.runStream('topic')) {
      if (item.type !== 'TaskResult') streamed.push(`${item.source}: ${messageToText(item)}`);
    }
    expect(streamed).toEqual([
      'user: topic',
      'A: A(topic)',
      'drafter: drafter(A(topic))',
      'checker: checker(drafter(A(topic)))',
      'research: checker(drafter(A(topic)))',
    ]);
    expect(lines(await flow.session('default').messages())).toEqual([
      'user: topic',
      'A: A(topic)',
      'research: checker(drafter(A(topic)))',
    ]);
    expect(team.sessionsInMemory).toBe(0);
    expect(nested.description).toBe('A nested team.');
    expect(() => asAgent(team, { name: 'bad name' })).toThrow(ConfigError);
  });

  it('toMermaid() draws entry points, nodes and conditions', () => {
    const [w, c, e] = ['writer', 'critic', 'editor'].map((n) => node(n));
    const flow = new GraphBuilder({ name: 'review' })
      .addNode(w!)
      .addNode(c!)
      .addNode(e!, { activation: 'any' })
      .addEdge(w!, c!)
      .addEdge(c!, w!, { when: 'REVISE' })
      .addEdge(c!, e!, { when: (m) => messageToText(m).includes('APPROVE') })
      .setEntryPoint(w!)
      .build();
    expect(flow.toMermaid()).toBe(
      [
        'flowchart TD',
        '  start((start))',
        '  writer["writer"]',
        '  critic["critic"]',
        '  editor("editor")',
        '  start --> writer',
        '  writer --> critic',
        '  critic -->|"REVISE"| writer',
        '  critic -->|"when"| editor',
      ].join('\n'),
    );
    expect(flow.machine.id).toBe('review');
  });

  it('build() rejects an edge to a node not added and a duplicate node', () => {
    const [a, b] = ['A', 'B'].map((n) => node(n));
    expect(() => new GraphBuilder({ name: 'g' }).addNode(a!).addEdge(a!, b!).build()).toThrow(
      new ConfigError(
        'GraphBuilder "g": edge "A" -> "B" uses "B", which is not a node (nodes: A). Add it with addNode() first.',
        { path: 'edges' },
      ),
    );
    expect(() => new GraphBuilder({ name: 'g' }).addNode(a!).addNode(a!).build()).toThrow(
      new ConfigError(
        'GraphBuilder "g": node "A" was added twice. Add each agent once; give agents unique names.',
        { path: 'nodes' },
      ),
    );
    expect(() => new GraphBuilder().addNode(a!, { activation: 'some' as never })).toThrow(
      'addNode("A"): activation must be "all" or "any", got "some".',
    );
  });
});
