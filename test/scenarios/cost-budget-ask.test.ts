import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { Agent } from '../../src/agents/agent.js';
import { tool } from '../../src/agents/tool.js';
import { MemoryCheckpointStore } from '../../src/checkpoint/memory-checkpoint-store.js';
import { ConfigError } from '../../src/errors.js';
import { approve, reject } from '../../src/messages/message-factories.js';
import {
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
} from '../../src/models/scripted-chat-client.js';
import { HandoffBuilder } from '../../src/orchestrations/handoff/handoff-builder.js';
import { RoundRobinGroupChat } from '../../src/orchestrations/teams/round-robin-group-chat.js';
import { CostTermination } from '../../src/termination/cost-termination.js';
import { costDesk, DESK_PRICES } from '../support/cost-desk.js';

describe('CostTermination with onExhausted: "ask"', () => {
  it('pauses with a "budget" request; approving it raises the budget and the session goes on', async () => {
    const store = new MemoryCheckpointStore();
    const { workflow, client } = costDesk(store, 0.15, 6, 'ask');
    const session = workflow.session('a1');
    expect((await session.run('one')).status).toBe('awaiting_input');
    const paused = await session.run('two');
    expect(paused.status).toBe('awaiting_input');
    const request = paused.pendingRequest;
    expect(request).toEqual({
      id: expect.any(String),
      agent: 'desk',
      prompt: 'Cost budget of $0.15 reached',
      kind: 'budget',
    });
    expect(client.calls.length).toBe(1);
    // The pause is a committed step: another workflow on the store sees the same request.
    const other = costDesk(store, 0.15, 5, 'ask');
    expect((await other.workflow.session('a1').info()).pendingRequest).toEqual(request);
    // No input: the same request, nothing run.
    expect((await session.run()).pendingRequest).toEqual(request);
    const goesOn = await session.run(approve(request?.id ?? '', { amountUsd: 0.5 }));
    expect(goesOn.status).toBe('awaiting_input');
    expect(goesOn.pendingRequest?.kind).toBe('input');
    expect(goesOn.messages.filter((m) => m.type === 'TextMessage').at(-1)).toMatchObject({
      source: 'desk',
      content: 'answer 2',
    });
    expect(client.calls.length).toBe(2);
    expect(await session.saveState()).toMatchObject({
      termination: { spentUsd: 0.2, grantedUsd: 0.5 },
    });
    // $0.65 now: four more calls fit, the fifth asks again with the new budget.
    for (const text of ['three', 'four', 'five', 'six']) await session.run(text);
    expect((await session.run('seven')).pendingRequest?.prompt).toBe(
      'Cost budget of $0.65 reached',
    );
  });

  it('records what the customer writes meanwhile and keeps the request open', async () => {
    const { workflow, client } = costDesk(new MemoryCheckpointStore(), 0.05, 2, 'ask');
    const session = workflow.session('a2');
    const paused = await session.run('one');
    const id = paused.pendingRequest?.id ?? '';
    const meanwhile = await session.run('hello?');
    expect(meanwhile.status).toBe('awaiting_input');
    expect(meanwhile.pendingRequest?.id).toBe(id);
    expect(client.calls.length).toBe(0);
    const answered = await session.run(approve(id, { amountUsd: 1 }));
    expect(answered.messages.at(-2)).toMatchObject({ type: 'TextMessage', content: 'answer 1' });
    // The agent saw both messages of the customer.
    const prompt = client.calls[0]?.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(prompt).toEqual(['one', 'hello?']);
  });

  it('stops with the request’s reason when the decision refuses more', async () => {
    const { workflow } = costDesk(undefined, 0.05, 1, 'ask');
    const session = workflow.session('a3');
    const id = (await session.run('one')).pendingRequest?.id ?? '';
    const stopped = await session.run(reject(id));
    expect([stopped.status, stopped.stopReason]).toEqual([
      'terminated',
      'Cost budget of $0.05 reached',
    ]);
    expect(stopped.pendingRequest).toBeUndefined();
  });

  it('refuses a decision without an amount, or on another request, before committing it', async () => {
    const { workflow } = costDesk(new MemoryCheckpointStore(), 0.05, 1, 'ask');
    const session = workflow.session('a4');
    const id = (await session.run('one')).pendingRequest?.id ?? '';
    const before = (await session.info()).step;
    const noAmount = await session.run(approve(id)).catch((e: unknown) => e);
    expect(noAmount).toBeInstanceOf(ConfigError);
    expect(noAmount).toMatchObject({
      path: 'task.amountUsd',
      message:
        `run(): approving budget request "${id}" needs \`amountUsd\`, the positive number of US ` +
        'dollars to raise the budget by, got undefined. Use approve(id, { amountUsd: 0.5 }).',
    });
    const wrong = await session.run(approve('nope', { amountUsd: 1 })).catch((e: unknown) => e);
    expect(wrong).toMatchObject({ name: 'ConfigError', path: 'task.callId' });
    expect((await session.info()).step).toBe(before);
  });

  it('records the tools a turn ran before its next call was refused, and runs them once', async () => {
    const ran: string[] = [];
    const lookup = tool({
      name: 'lookup',
      description: 'Looks an order up.',
      parameters: z.object({ id: z.string() }),
      execute: ({ id }) => {
        ran.push(id);
        return `order ${id}: shipped`;
      },
    });
    const usage = { promptTokens: 50, completionTokens: 10 };
    const client = new ScriptedChatClient(
      [
        { ...scriptedToolCall('lookup', { id: '7' }), usage },
        scriptedText('Order 7 has shipped.', usage),
      ],
      { model: 'desk-model', maxCompletionTokens: 10 },
    );
    const workflow = new HandoffBuilder({
      participants: [new Agent({ name: 'desk', client, tools: [lookup], maxToolIterations: 2 })],
    })
      .coordinator('desk')
      .withCheckpointing(new MemoryCheckpointStore())
      .withTerminationCondition(
        new CostTermination({ maxUsd: 0.15, prices: DESK_PRICES, onExhausted: 'ask' }),
      )
      .build();
    const session = workflow.session('t1');
    const paused = await session.run('Where is order 7?');
    expect(paused.pendingRequest?.kind).toBe('budget');
    expect(paused.messages.map((m) => m.type)).toEqual([
      'TextMessage',
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
      'UserInputRequestedEvent',
    ]);
    expect(paused.messages.at(-1)).toMatchObject({
      source: 'desk',
      requestId: paused.pendingRequest?.id,
      content: 'Cost budget of $0.15 reached',
    });
    expect(ran).toEqual(['7']);
    const done = await session.run(approve(paused.pendingRequest?.id ?? '', { amountUsd: 0.1 }));
    expect(done.messages.at(-2)).toMatchObject({ content: 'Order 7 has shipped.' });
    expect(ran).toEqual(['7']);
    // The model saw the call's result when it was asked again.
    expect(client.calls[1]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: 'order 7: shipped',
    });
  });
});

describe('CostTermination with approvals and teams', () => {
  it('stops before the model call that follows an approved tool, with the tool’s result kept', async () => {
    const ran: string[] = [];
    const refund = tool({
      name: 'refund',
      description: 'Refunds an invoice.',
      parameters: z.object({ id: z.string() }),
      needsApproval: true,
      execute: ({ id }) => {
        ran.push(id);
        return `refunded ${id}`;
      },
    });
    const usage = { promptTokens: 50, completionTokens: 10 };
    const client = new ScriptedChatClient(
      [{ ...scriptedToolCall('refund', { id: 'INV-1' }), usage }, scriptedText('Done.', usage)],
      { model: 'desk-model', maxCompletionTokens: 10 },
    );
    const workflow = new HandoffBuilder({
      participants: [new Agent({ name: 'desk', client, tools: [refund], maxToolIterations: 2 })],
    })
      .coordinator('desk')
      .withCheckpointing(new MemoryCheckpointStore())
      .withTerminationCondition(new CostTermination({ maxUsd: 0.15, prices: DESK_PRICES }))
      .build();
    const session = workflow.session('ap1');
    const paused = await session.run('Refund INV-1');
    expect(paused.pendingRequest?.kind).toBe('approval');
    const callId = paused.pendingRequest?.calls?.[0]?.id ?? '';
    const stopped = await session.run(approve(callId));
    expect([stopped.status, stopped.stopReason]).toEqual([
      'terminated',
      'Cost budget of $0.15 reached',
    ]);
    expect(ran).toEqual(['INV-1']);
    expect(client.calls.length).toBe(1);
    expect(stopped.messages.map((m) => m.type)).toEqual([
      'ToolApprovalResponseEvent',
      'ToolCallExecutionEvent',
    ]);
  });

  it('holds a round-robin team to its budget', async () => {
    const usage = { promptTokens: 50, completionTokens: 10 };
    const agent = (name: string) =>
      new Agent({
        name,
        client: new ScriptedChatClient(
          Array.from({ length: 5 }, (_, i) => scriptedText(`${name} ${i}`, usage)),
          { model: 'desk-model', maxCompletionTokens: 10 },
        ),
      });
    const team = new RoundRobinGroupChat([agent('writer'), agent('critic')], {
      terminationCondition: new CostTermination({ maxUsd: 0.35, prices: DESK_PRICES }),
    });
    const result = await team.run('Write a slogan.');
    expect(result.stopReason).toBe('Cost budget of $0.35 reached');
    expect(result.messages.map((m) => m.source)).toEqual(['user', 'writer', 'critic', 'writer']);
  });
});
