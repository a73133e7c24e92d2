// A three-agent HandoffBuilder workflow whose agents talk to the strict local OpenAI-compatible
// server over HTTP, across two user turns with a pause. Black-box: API.md §3–§6 only.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  type AgentMessage,
  HandoffBuilder,
  OpenAIChatClient,
  tool,
} from '../../src/index.js';
import {
  type OpenAICompatibleServer,
  startOpenAICompatibleServer,
} from '../support/openai-compatible-server.js';

const moved = (target: string) =>
  `Transferred to ${target}, adopting the role of ${target} immediately.`;

let server: OpenAICompatibleServer;
beforeAll(async () => {
  server = await startOpenAICompatibleServer({ apiKey: 'sk-handoff' });
});
afterAll(() => server.close());

const client = () =>
  new OpenAIChatClient({
    model: 'desk-model',
    apiKey: 'sk-handoff',
    baseURL: server.url,
    maxRetries: 0,
  });

/** The contract-level facts of a message: no ids, dates, usage, metadata or handoff context. */
function essence(m: AgentMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { type: m.type, source: m.source, content: m.content };
  if (m.type === 'HandoffMessage') out.target = m.target;
  return out;
}

type WireMessage = { role: string; tool_calls?: { function: { name: string } }[] };
const offered = (n: number) =>
  ((server.requests[n]?.body.tools ?? []) as { function: { name: string } }[])
    .map((t) => t.function.name)
    .sort();
const calledIn = (n: number) =>
  ((server.requests[n]?.body.messages ?? []) as WireMessage[]).flatMap((m) =>
    (m.tool_calls ?? []).map((c) => c.function.name),
  );

describe('HandoffWorkflow over HTTP', () => {
  it('routes coordinator → specialist → specialist across a pause with zero wire violations', async () => {
    const seenInvoices: string[] = [];
    const lookup = tool({
      name: 'lookup_invoice',
      description: 'Finds an invoice by id.',
      parameters: z.object({ invoiceId: z.string() }),
      execute: ({ invoiceId }) => {
        seenInvoices.push(invoiceId);
        return `${invoiceId}: 40 EUR, unpaid`;
      },
    });
    const triage = new Agent({
      name: 'triage',
      instructions: 'Route the customer to the right desk.',
      client: client(),
    });
    const billing = new Agent({
      name: 'billing',
      instructions: 'You handle invoices.',
      client: client(),
      tools: [lookup],
      maxToolIterations: 2,
    });
    const tech = new Agent({
      name: 'tech',
      instructions: 'You fix the app.',
      client: client(),
    });
    const workflow = new HandoffBuilder({
      name: 'desk',
      participants: [triage, billing, tech],
    })
      .coordinator(triage)
      .addHandoff(billing, [tech])
      .build();

    server.reply(
      {
        toolCalls: [{ id: 'call_1', name: 'handoff_to_billing', arguments: {} }],
        usage: { prompt_tokens: 30, completion_tokens: 5 },
      },
      {
        toolCalls: [{ id: 'call_2', name: 'lookup_invoice', arguments: { invoiceId: 'INV-7' } }],
        usage: { prompt_tokens: 40, completion_tokens: 6 },
      },
      {
        text: 'INV-7 is 40 EUR and unpaid. Is the amount wrong?',
        usage: { prompt_tokens: 50, completion_tokens: 9 },
      },
    );
    const first = await workflow.run('My invoice INV-7 is wrong');

    expect(first.messages.map(essence)).toEqual([
      { type: 'TextMessage', source: 'user', content: 'My invoice INV-7 is wrong' },
      {
        type: 'ToolCallRequestEvent',
        source: 'triage',
        content: [{ id: 'call_1', name: 'handoff_to_billing', arguments: '{}' }],
      },
      {
        type: 'ToolCallExecutionEvent',
        source: 'triage',
        content: [
          {
            callId: 'call_1',
            name: 'handoff_to_billing',
            content: moved('billing'),
            isError: false,
          },
        ],
      },
      { type: 'HandoffMessage', source: 'triage', target: 'billing', content: moved('billing') },
      {
        type: 'ToolCallRequestEvent',
        source: 'billing',
        content: [{ id: 'call_2', name: 'lookup_invoice', arguments: '{"invoiceId":"INV-7"}' }],
      },
      {
        type: 'ToolCallExecutionEvent',
        source: 'billing',
        content: [
          {
            callId: 'call_2',
            name: 'lookup_invoice',
            content: 'INV-7: 40 EUR, unpaid',
            isError: false,
          },
        ],
      },
      {
        type: 'TextMessage',
        source: 'billing',
        content: 'INV-7 is 40 EUR and unpaid. Is the amount wrong?',
      },
      {
        type: 'UserInputRequestedEvent',
        source: 'billing',
        content: 'INV-7 is 40 EUR and unpaid. Is the amount wrong?',
      },
    ]);
    expect([first.status, first.stopReason, first.pendingRequest]).toEqual([
      'awaiting_input',
      null,
      {
        id: expect.any(String),
        agent: 'billing',
        prompt: 'INV-7 is 40 EUR and unpaid. Is the amount wrong?',
        kind: 'input',
      },
    ]);
    expect(first.usage).toEqual({ promptTokens: 120, completionTokens: 20 });
    expect(seenInvoices).toEqual(['INV-7']);

    server.reply(
      {
        toolCalls: [{ id: 'call_4', name: 'handoff_to_billing', arguments: {} }],
        usage: { prompt_tokens: 60, completion_tokens: 5 },
      },
      {
        toolCalls: [{ id: 'call_5', name: 'handoff_to_tech', arguments: {} }],
        usage: { prompt_tokens: 70, completion_tokens: 5 },
      },
      {
        text: 'Update the app to 2.1, then pay again.',
        usage: { prompt_tokens: 80, completion_tokens: 11 },
      },
    );
    const second = await workflow.run('Yes, and the app crashes when I pay');

    expect(second.messages.map(essence)).toEqual([
      { type: 'TextMessage', source: 'user', content: 'Yes, and the app crashes when I pay' },
      {
        type: 'ToolCallRequestEvent',
        source: 'triage',
        content: [{ id: 'call_4', name: 'handoff_to_billing', arguments: '{}' }],
      },
      {
        type: 'ToolCallExecutionEvent',
        source: 'triage',
        content: [
          {
            callId: 'call_4',
            name: 'handoff_to_billing',
            content: moved('billing'),
            isError: false,
          },
        ],
      },
      { type: 'HandoffMessage', source: 'triage', target: 'billing', content: moved('billing') },
      {
        type: 'ToolCallRequestEvent',
        source: 'billing',
        content: [{ id: 'call_5', name: 'handoff_to_tech', arguments: '{}' }],
      },
      {
        type: 'ToolCallExecutionEvent',
        source: 'billing',
        content: [
          { callId: 'call_5', name: 'handoff_to_tech', content: moved('tech'), isError: false },
        ],
      },
      { type: 'HandoffMessage', source: 'billing', target: 'tech', content: moved('tech') },
      { type: 'TextMessage', source: 'tech', content: 'Update the app to 2.1, then pay again.' },
      {
        type: 'UserInputRequestedEvent',
        source: 'tech',
        content: 'Update the app to 2.1, then pay again.',
      },
    ]);
    expect([second.status, second.pendingRequest?.agent, second.sessionId]).toEqual([
      'awaiting_input',
      'tech',
      first.sessionId,
    ]);
    expect(second.usage).toEqual({ promptTokens: 210, completionTokens: 21 });

    expect(server.requests).toHaveLength(6);
    expect([0, 1, 2, 3, 4, 5].map(offered)).toEqual([
      ['handoff_to_billing', 'handoff_to_tech'],
      ['handoff_to_tech', 'lookup_invoice'],
      ['handoff_to_tech', 'lookup_invoice'],
      ['handoff_to_billing', 'handoff_to_tech'],
      ['handoff_to_tech', 'lookup_invoice'],
      [],
    ]);
    expect(
      [0, 1, 2, 3, 4, 5].map((n) => calledIn(n).filter((name) => name.startsWith('handoff_to_'))),
    ).toEqual([[], [], [], [], [], []]);
    expect(calledIn(2)).toEqual(['lookup_invoice']);
    expect(server.requests[3]?.body.messages).toEqual(
      expect.arrayContaining([{ role: 'user', content: 'Yes, and the app crashes when I pay' }]),
    );
    expect(server.violations).toEqual([]);
  });
});
