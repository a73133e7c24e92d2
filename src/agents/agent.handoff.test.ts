import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { createTestContext, shape } from '../../test/support/test-context.js';
import { ConfigError } from '../errors.js';
import type { FunctionCall } from '../messages/message.js';
import { textMessage } from '../messages/message-factories.js';
import {
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
} from '../models/scripted-chat-client.js';
import { Agent } from './agent.js';
import { Handoff } from './handoff.js';
import { tool } from './tool.js';

const lookup = tool({
  name: 'lookup',
  parameters: z.object({ id: z.number() }),
  execute: ({ id }) => `invoice ${id} is unpaid`,
});
const call = (id: string, name: string, args = '{}'): FunctionCall => ({
  id,
  name,
  arguments: args,
});
const task = textMessage({ source: 'user', content: 'Refund invoice 42' });

describe('Agent handoffs', () => {
  it('offers a handoff tool per target and answers a call with a HandoffMessage', async () => {
    const client = new ScriptedChatClient([scriptedToolCall('handoff_to_billing', {}, 'h1')]);
    const agent = new Agent({ name: 'triage', client, handoffs: ['billing'] });
    const response = await agent.respond(createTestContext({ conversation: [task] }).ctx);
    const message = 'Transferred to billing, adopting the role of billing immediately.';
    expect(client.calls[0]?.tools).toEqual([new Handoff({ target: 'billing' }).schema]);
    expect(response.innerMessages?.map(shape)).toEqual([
      {
        type: 'ToolCallRequestEvent',
        source: 'triage',
        content: [call('h1', 'handoff_to_billing')],
        usage: { promptTokens: 0, completionTokens: 0 },
        metadata: {},
      },
      {
        type: 'ToolCallExecutionEvent',
        source: 'triage',
        content: [{ callId: 'h1', name: 'handoff_to_billing', content: message, isError: false }],
        metadata: {},
      },
    ]);
    expect(shape(response.chatMessage)).toEqual({
      type: 'HandoffMessage',
      source: 'triage',
      target: 'billing',
      content: message,
      context: [],
      metadata: {},
    });
  });

  it('carries out the first handoff only, runs the other tools and passes them on as context', async () => {
    const client = new ScriptedChatClient([
      {
        toolCalls: [
          call('c1', 'lookup', '{"id":42}'),
          call('h1', 'to_tech'),
          call('h2', 'handoff_to_billing'),
        ],
      },
    ]);
    const agent = new Agent({
      name: 'triage',
      client,
      tools: [lookup],
      handoffs: ['billing', new Handoff({ target: 'tech', name: 'to_tech', message: 'Tech now.' })],
    });
    const response = await agent.respond(createTestContext({ conversation: [task] }).ctx);
    const lookupResult = {
      callId: 'c1',
      name: 'lookup',
      content: 'invoice 42 is unpaid',
      isError: false,
    };
    expect(response.innerMessages?.[1]?.content).toEqual([
      lookupResult,
      { callId: 'h1', name: 'to_tech', content: 'Tech now.', isError: false },
      {
        callId: 'h2',
        name: 'handoff_to_billing',
        content:
          'Handoff to "billing" was ignored: this answer already hands off to "tech". Call one ' +
          'handoff tool per answer.',
        isError: true,
      },
    ]);
    expect(shape(response.chatMessage)).toEqual({
      type: 'HandoffMessage',
      source: 'triage',
      target: 'tech',
      content: 'Tech now.',
      context: [
        {
          type: 'ToolCallSummaryMessage',
          source: 'triage',
          content: 'invoice 42 is unpaid',
          toolCalls: [call('c1', 'lookup', '{"id":42}')],
          results: [lookupResult],
          metadata: {},
        },
      ],
      metadata: {},
    });
  });

  it('does not show handoff calls to middleware', async () => {
    const seen: string[] = [];
    const client = new ScriptedChatClient([
      { toolCalls: [call('c1', 'lookup', '{"id":1}'), call('h1', 'handoff_to_billing')] },
    ]);
    const agent = new Agent({
      name: 'triage',
      client,
      tools: [lookup],
      handoffs: ['billing'],
      middleware: [
        (c, next) => {
          seen.push(c.name);
          return next(c);
        },
      ],
    });
    await agent.respond(createTestContext().ctx);
    expect(seen).toEqual(['lookup']);
  });

  it('adds the handoffs granted for the turn, keeping its own for the same target', async () => {
    const client = new ScriptedChatClient([scriptedToolCall('to_tech', {}, 'h1')]);
    const own = new Handoff({ target: 'billing', description: 'Own route.' });
    const agent = new Agent({ name: 'triage', client, handoffs: [own] });
    const granted = [
      new Handoff({ target: 'billing', name: 'other_billing' }),
      new Handoff({ target: 'tech', name: 'to_tech' }),
    ];
    const response = await agent.respond(createTestContext({ handoffs: granted }).ctx);
    expect(client.calls[0]?.tools?.map((t) => `${t.name}: ${t.description}`)).toEqual([
      'handoff_to_billing: Own route.',
      'to_tech: Handoff to tech.',
    ]);
    expect(response.chatMessage).toMatchObject({ type: 'HandoffMessage', target: 'tech' });
    expect(agent.handoffs).toEqual([own]);
  });

  it('rejects a granted handoff whose tool name is taken by one of its tools', async () => {
    const taken = tool({ name: 'handoff_to_tech', parameters: z.object({}), execute: () => '' });
    const agent = new Agent({ name: 'triage', client: new ScriptedChatClient([]), tools: [taken] });
    const ctx = createTestContext({ handoffs: [new Handoff({ target: 'tech' })] }).ctx;
    await expect(agent.respond(ctx)).rejects.toThrow(ConfigError);
    await expect(agent.respond(ctx)).rejects.toThrow(
      'Agent "triage": the handoff tool "handoff_to_tech" (to "tech") has the same name as another ' +
        'of its tools. Rename that tool or give the Handoff another name.',
    );
  });

  it('lets the target see the context and the handoff, and the source its own calls', async () => {
    const triageClient = new ScriptedChatClient([
      { toolCalls: [call('c1', 'lookup', '{"id":42}'), call('h1', 'handoff_to_billing')] },
      scriptedText('Back with me.'),
    ]);
    const triage = new Agent({
      name: 'triage',
      client: triageClient,
      tools: [lookup],
      handoffs: ['billing'],
    });
    const billingClient = new ScriptedChatClient([scriptedText('Refunded.')]);
    const billing = new Agent({ name: 'billing', client: billingClient, instructions: 'Billing.' });

    const first = await triage.respond(createTestContext({ conversation: [task] }).ctx);
    const thread = [task, ...(first.innerMessages ?? []), first.chatMessage];
    const second = await billing.respond(createTestContext({ conversation: thread }).ctx);
    await triage.respond(createTestContext({ conversation: [...thread, second.chatMessage] }).ctx);

    const handoffText = 'Transferred to billing, adopting the role of billing immediately.';
    expect(billingClient.calls[0]?.messages).toEqual([
      { role: 'system', content: 'Billing.' },
      { role: 'user', content: 'Refund invoice 42' },
      { role: 'user', content: '[triage] called lookup({"id":42}) -> invoice 42 is unpaid' },
      { role: 'user', content: `[handoff from triage to billing]: ${handoffText}` },
    ]);
    expect(triageClient.calls[1]?.messages).toEqual([
      { role: 'user', content: 'Refund invoice 42' },
      { role: 'assistant', content: null, toolCalls: [call('c1', 'lookup', '{"id":42}')] },
      { role: 'tool', toolCallId: 'c1', content: 'invoice 42 is unpaid' },
      { role: 'assistant', content: handoffText },
      { role: 'user', content: '[billing]: Refunded.' },
    ]);
  });

  it('applies the tool-call filter and context window given for the turn', async () => {
    const client = new ScriptedChatClient([scriptedText('ok'), scriptedText('ok')]);
    const agent = new Agent({ name: 'billing', client, instructions: 'Billing.' });
    const thread = [
      task,
      textMessage({ source: 'triage', content: 'One' }),
      textMessage({ source: 'user', content: 'Two' }),
    ];
    await agent.respond(createTestContext({ conversation: thread, contextWindow: 1 }).ctx);
    expect(client.calls[0]?.messages).toEqual([
      { role: 'system', content: 'Billing.' },
      { role: 'user', content: 'Two' },
    ]);
    const ctx = createTestContext({ conversation: thread, toolCallFilter: 'bad' as 'all' }).ctx;
    await expect(agent.respond(ctx)).rejects.toThrow(
      'toModelMessages(): toolCallFilter "bad" is unknown. Use "handoff", "all" or "none".',
    );
  });
});
