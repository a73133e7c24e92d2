import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { Agent } from '../../src/agents/agent.js';
import { tool } from '../../src/agents/tool.js';
import type { AgentMessage } from '../../src/messages/message.js';
import { textMessage } from '../../src/messages/message-factories.js';
import { OpenAIChatClient } from '../../src/models/openai-chat-client.js';
import {
  type OpenAICompatibleServer,
  startOpenAICompatibleServer,
} from '../support/openai-compatible-server.js';
import { createTestContext, shape } from '../support/test-context.js';

let server: OpenAICompatibleServer;
beforeAll(async () => {
  server = await startOpenAICompatibleServer({ apiKey: 'sk-test' });
});
afterEach(() => {
  const violations = [...server.violations];
  server.reset();
  expect(violations).toEqual([]);
});
afterAll(() => server.close());

const client = () =>
  new OpenAIChatClient({
    model: 'test-model',
    apiKey: 'sk-test',
    baseURL: server.url,
    maxRetries: 0,
  });
const lookup = tool({
  name: 'lookup_invoice',
  description: 'Finds an invoice.',
  parameters: z.object({ invoiceId: z.string() }),
  execute: ({ invoiceId }) => `Invoice ${invoiceId}: unpaid`,
});
const task = textMessage({ source: 'user', content: 'Refund invoices 1 and 2' });
const sent = (n: number) => server.requests[n]?.body.messages;

describe('Agent over HTTP', () => {
  it('runs parallel tool calls, streams the answer and sends the results in the next request', async () => {
    server.reply(
      {
        toolCalls: [
          { id: 'call_1', name: 'lookup_invoice', arguments: { invoiceId: '1' } },
          { id: 'call_2', name: 'lookup_invoice', arguments: { invoiceId: '2' } },
        ],
        usage: { prompt_tokens: 50, completion_tokens: 20 },
      },
      { text: 'Both are unpaid.', usage: { prompt_tokens: 90, completion_tokens: 5 } },
    );
    const agent = new Agent({
      name: 'clerk',
      client: client(),
      tools: [lookup],
      maxToolIterations: 2,
      stream: true,
    });
    const { ctx, emitted } = createTestContext({ conversation: [task] });
    const response = await agent.respond(ctx);
    expect(shape(response.chatMessage)).toEqual({
      type: 'TextMessage',
      source: 'clerk',
      content: 'Both are unpaid.',
      usage: { promptTokens: 90, completionTokens: 5 },
      metadata: {},
    });
    expect(response.innerMessages?.[0]?.usage).toEqual({ promptTokens: 50, completionTokens: 20 });
    expect(sent(1)).toEqual([
      { role: 'user', content: 'Refund invoices 1 and 2' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'lookup_invoice', arguments: '{"invoiceId":"1"}' },
          },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'lookup_invoice', arguments: '{"invoiceId":"2"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'Invoice 1: unpaid' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Invoice 2: unpaid' },
    ]);
    expect(
      emitted.filter((e) => e.type === 'ModelClientStreamingChunkEvent').map((e) => e.content),
    ).toEqual(['Both', ' are', ' unp', 'aid.']);
  });

  it('sends bad tool input back as error results that the server accepts', async () => {
    server.reply(
      {
        toolCalls: [
          { id: 'a', name: 'lookup_invoice', arguments: '{"invoiceId": 7' },
          { id: 'b', name: 'lookup_invoice', arguments: { invoice: '7' } },
        ],
      },
      { text: 'Let me fix that.' },
    );
    const agent = new Agent({
      name: 'clerk',
      client: client(),
      tools: [lookup],
      maxToolIterations: 2,
    });
    await agent.respond(createTestContext({ conversation: [task] }).ctx);
    expect(
      (sent(1) as { role: string; content: string }[]).filter((m) => m.role === 'tool'),
    ).toEqual([
      {
        role: 'tool',
        tool_call_id: 'a',
        content:
          'Tool "lookup_invoice" received arguments that are not valid JSON: {"invoiceId": 7. Send ' +
          'the arguments as one JSON object.',
      },
      {
        role: 'tool',
        tool_call_id: 'b',
        content:
          'Tool "lookup_invoice" received invalid arguments: invoiceId: Invalid input: expected ' +
          'string, received undefined. Fix them and call the tool again.',
      },
    ]);
  });

  it('answers in the output schema as a StructuredMessage', async () => {
    server.reply({ text: '{"route":"billing","confidence":0.9}' });
    const outputSchema = z.object({ route: z.string(), confidence: z.number() });
    const agent = new Agent({ name: 'router', client: client(), outputSchema });
    const response = await agent.respond(createTestContext({ conversation: [task] }).ctx);
    expect(response.chatMessage).toMatchObject({
      type: 'StructuredMessage',
      content: { route: 'billing', confidence: 0.9 },
    });
    expect(server.requests[0]?.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'output', schema: { required: ['route', 'confidence'] } },
    });
  });

  it('hands off over HTTP and every later view is accepted by the strict server', async () => {
    const triage = new Agent({
      name: 'triage',
      instructions: 'Route the customer.',
      client: client(),
      tools: [lookup],
      handoffs: ['billing', 'tech'],
      stream: true,
    });
    const billing = new Agent({ name: 'billing', instructions: 'Refunds.', client: client() });
    server.reply({
      toolCalls: [
        { id: 'c1', name: 'lookup_invoice', arguments: { invoiceId: '1' } },
        { id: 'h1', name: 'handoff_to_billing', arguments: {} },
        { id: 'h2', name: 'handoff_to_tech', arguments: {} },
      ],
    });
    const thread: AgentMessage[] = [task];
    const turn = async (agent: Agent, filter?: 'all' | 'none') => {
      const extra = filter === undefined ? {} : { toolCallFilter: filter };
      const r = await agent.respond(createTestContext({ conversation: thread, ...extra }).ctx);
      thread.push(...(r.innerMessages ?? []), r.chatMessage);
      return r;
    };
    const hop = await turn(triage);
    expect(hop.chatMessage).toMatchObject({ type: 'HandoffMessage', target: 'billing' });

    server.reply({ text: 'Invoice 1 is refunded.' });
    await turn(billing);
    expect(sent(1)).toEqual([
      { role: 'system', content: 'Refunds.' },
      { role: 'user', content: 'Refund invoices 1 and 2' },
      {
        role: 'user',
        content: '[triage] called lookup_invoice({"invoiceId":"1"}) -> Invoice 1: unpaid',
      },
      {
        role: 'user',
        content:
          '[handoff from triage to billing]: ' +
          'Transferred to billing, adopting the role of billing immediately.',
      },
    ]);

    thread.push(textMessage({ source: 'user', content: 'And invoice 2?' }));
    server.reply({ text: 'One moment.' }, { text: 'Still here.' }, { text: 'And here.' });
    await turn(triage);
    await turn(triage, 'none');
    await turn(triage, 'all');
    const shown = (n: number) =>
      (sent(n) as { role: string; tool_calls?: unknown[] }[]).map(
        (m) => `${m.role}:${m.tool_calls?.length ?? 0}`,
      );
    // billing's answer is a user turn that names it; a view that would end with triage's own
    // answer ends with a note that gives it the floor (providers refuse a trailing assistant turn).
    expect(shown(2)).toEqual([
      'system:0',
      'user:0',
      'assistant:1',
      'tool:0',
      'assistant:0',
      'user:0',
      'user:0',
    ]);
    expect(shown(3)).toEqual([
      'system:0',
      'user:0',
      'assistant:3',
      'tool:0',
      'tool:0',
      'tool:0',
      'assistant:0',
      'user:0',
      'user:0',
      'assistant:0',
      'user:0',
    ]);
    expect(shown(4)).toEqual([
      'system:0',
      'user:0',
      'assistant:0',
      'user:0',
      'user:0',
      'assistant:0',
      'assistant:0',
      'user:0',
    ]);
  });

  it('rejects with the abort when the turn is cancelled mid-request', async () => {
    server.reply({ hang: true });
    const agent = new Agent({ name: 'clerk', client: client() });
    const controller = new AbortController();
    const pending = agent.respond(
      createTestContext({ conversation: [task], signal: controller.signal }).ctx,
    );
    await server.received(1);
    controller.abort();
    await expect(pending).rejects.toThrow('Request was aborted.');
  });

  it('rejects with the provider’s message when the model call fails', async () => {
    server.reply({ status: 400, message: "This model's maximum context length is 8192 tokens." });
    const agent = new Agent({ name: 'clerk', client: client() });
    await expect(agent.respond(createTestContext({ conversation: [task] }).ctx)).rejects.toThrow(
      `Model "test-model" at ${server.url} request failed: 400 This model's maximum context length is 8192 tokens.`,
    );
  });
});

describe('the OpenAI-compatible test server', () => {
  it('answers a request that breaks a wire rule with a 400 and records the violation', async () => {
    const response = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        messages: [{ role: 'tool', tool_call_id: 'x', content: 'r' }],
      }),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(server.violations).toEqual([
      "request #1: Invalid parameter: messages[0] with role 'tool' must be a response to a preceding message with 'tool_calls' (tool_call_id \"x\").",
    ]);
    expect(() => server.assertNoViolations()).toThrow(
      'The OpenAI-compatible test server saw wire violations:',
    );
    server.reset();
  });
});
