// Black-box suite for API.md §13 (asAgent) and §10 in graphs (approvals, guardrails), written from
// API.md alone: it imports only the public surface.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  type AgentMessage,
  approve,
  asAgent,
  GraphBuilder,
  guardrail,
  MemoryCheckpointStore,
  reject,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedToolCall,
  tool,
} from '../../../src/index.js';

function says(name: string, ...texts: string[]): Agent {
  return new Agent({ name, client: new ScriptedChatClient(texts.map((content) => ({ content }))) });
}

const transcript = (messages: readonly AgentMessage[]) =>
  messages.map((m) => `${m.type} ${m.source}: ${'content' in m ? JSON.stringify(m.content) : ''}`);

describe('asAgent (API.md §13)', () => {
  it('runs a graph as a node of another graph: a fresh inner session each time, its last answer as text', async () => {
    const inner = new GraphBuilder({ name: 'inner' })
      .addNode(says('draft', 'first draft', 'second draft'))
      .addNode(says('polish', 'polished one', 'polished two'))
      .addEdge('draft', 'polish')
      .build();
    const team = asAgent(inner, { name: 'desk', description: 'drafts and polishes' });
    expect(team.name).toBe('desk');
    expect(team.description).toBe('drafts and polishes');
    const outer = new GraphBuilder({ name: 'outer' })
      .addNode(says('intake', 'brief', 'brief again'))
      .addNode(team)
      .addEdge('intake', 'desk')
      .build();
    const streamed: AgentMessage[] = [];
    let result;
    for await (const item of outer.runStream('write')) {
      if (item.type === 'TaskResult') result = item;
      else streamed.push(item);
    }
    expect(result?.messages.map((m) => `${m.source}: ${'content' in m ? m.content : ''}`)).toEqual([
      'user: write',
      'intake: brief',
      'desk: polished one',
    ]);
    // The inner run's messages were streamed as they happened.
    expect(streamed.map((m) => `${m.source}: ${'content' in m ? m.content : ''}`)).toEqual(
      expect.arrayContaining(['draft: first draft', 'polish: polished one']),
    );
    // A second outer run starts a fresh inner session (the inner thread is not kept).
    const again = await outer.session('two').run('again');
    expect(again.messages.at(-1)).toMatchObject({
      type: 'TextMessage',
      source: 'desk',
      content: 'polished two',
    });
  });

  it('makes a team a participant of another team', async () => {
    const pair = new RoundRobinGroupChat([says('x', 'X said'), says('y', 'Y said')], {
      maxTurns: 2,
    });
    const outer = new RoundRobinGroupChat(
      [says('lead', 'go team'), asAgent(pair, { name: 'pair' })],
      { maxTurns: 2 },
    );
    const result = await outer.run('task');
    expect(result.messages.map((m) => `${m.source}: ${'content' in m ? m.content : ''}`)).toEqual([
      'user: task',
      'lead: go team',
      'pair: Y said',
    ]);
    expect(result.stopReason).toBe('Maximum number of turns 2 reached.');
  });
});

describe('approvals and guardrails in a graph (API.md §10)', () => {
  it('pauses a node for approval, resumes in another workflow object, and runs the tool once', async () => {
    const refunds: string[] = [];
    const refund = tool({
      name: 'refund',
      description: 'Refunds an invoice.',
      parameters: z.object({ invoiceId: z.string() }),
      needsApproval: true,
      execute: async ({ invoiceId }, ctx) => {
        refunds.push(`${invoiceId}/${ctx.callId}`);
        return `refunded ${invoiceId}`;
      },
    });
    const store = new MemoryCheckpointStore();
    const build = () =>
      new GraphBuilder({ name: 'refunds' })
        .addNode(
          new Agent({
            name: 'billing',
            tools: [refund],
            client: new ScriptedChatClient([
              scriptedToolCall('refund', { invoiceId: 'INV-7' }, 'call-1'),
            ]),
          }),
        )
        .addNode(says('notify', 'Customer told.'))
        .addEdge('billing', 'notify')
        .withCheckpointing(store)
        .build();
    const paused = await build().session('s').run('refund INV-7');
    expect(paused.status).toBe('awaiting_input');
    expect(paused.pendingRequest).toMatchObject({
      agent: 'billing',
      kind: 'approval',
      calls: [{ id: 'call-1', name: 'refund', arguments: '{"invoiceId":"INV-7"}' }],
    });
    expect(refunds).toEqual([]);
    const later = build().session('s');
    expect((await later.info()).pendingRequest).toMatchObject({ agent: 'billing' });
    const done = await later.run(approve('call-1'));
    expect(refunds).toEqual(['INV-7/call-1']);
    expect(done.status).toBe('terminated');
    expect(done.stopReason).toBe('Digraph execution is complete');
    // maxToolIterations defaults to 1: the approved call's result sums the turn up.
    expect(
      done.messages
        .filter((m) => m.type === 'ToolCallSummaryMessage' || m.type === 'TextMessage')
        .map((m) => `${m.type} ${m.source}: ${String(m.content)}`),
    ).toEqual([
      'ToolCallSummaryMessage billing: refunded INV-7',
      'TextMessage notify: Customer told.',
    ]);
  });

  it('gives a rejected call the rejection result and completes the graph', async () => {
    const refund = tool({
      name: 'refund',
      description: 'Refunds an invoice.',
      parameters: z.object({ invoiceId: z.string() }),
      needsApproval: true,
      execute: async () => 'refunded',
    });
    const billing = new Agent({
      name: 'billing',
      tools: [refund],
      client: new ScriptedChatClient([
        scriptedToolCall('refund', { invoiceId: 'INV-8' }, 'call-2'),
      ]),
    });
    const graph = new GraphBuilder({ name: 'rejects' }).addNode(billing).build();
    await graph.run('refund INV-8');
    const result = await graph.run(reject('call-2', 'too large'));
    const execution = result.messages.find((m) => m.type === 'ToolCallExecutionEvent');
    expect(execution).toMatchObject({
      content: [
        {
          callId: 'call-2',
          isError: true,
          content: 'Tool call "refund" was rejected by the user: too large',
        },
      ],
    });
    expect(result.messages.at(-1)).toMatchObject({
      type: 'ToolCallSummaryMessage',
      source: 'billing',
      content: 'Tool call "refund" was rejected by the user: too large',
    });
    expect(result.stopReason).toBe('Digraph execution is complete');
  });

  it('stops on an input or output guardrail given as the graph option', async () => {
    const noCards = guardrail({
      name: 'no_card_numbers',
      check: ({ text }) =>
        /\b\d{13,16}\b/.test(text)
          ? { tripwire: true, info: 'a card number' }
          : { tripwire: false },
    });
    const graph = new GraphBuilder({
      name: 'guarded',
      guardrails: { input: [noCards], output: [noCards] },
    })
      .addNode(says('a', 'card 4111111111111111'))
      .addNode(says('b', 'never'))
      .addEdge('a', 'b')
      .build();
    const input = await graph.session('in').run('my card is 4111111111111111');
    expect(input.stopReason).toBe('Guardrail "no_card_numbers" tripped: a card number');
    expect(transcript(input.messages)).toEqual([
      'TextMessage user: "my card is 4111111111111111"',
      'GuardrailTrippedEvent no_card_numbers: "a card number"',
    ]);
    const output = await graph.session('out').run('hello');
    expect(output.status).toBe('terminated');
    expect(output.stopReason).toBe('Guardrail "no_card_numbers" tripped: a card number');
    expect(transcript(output.messages)).toEqual([
      'TextMessage user: "hello"',
      'GuardrailTrippedEvent no_card_numbers: "a card number"',
    ]);
  });
});
