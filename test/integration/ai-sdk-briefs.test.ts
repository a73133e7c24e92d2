// Issue 46 (API.md §24 with §20): a handoff with a brief over AiSdkChatClient, against the strict
// local OpenAI-compatible server and the local Anthropic Messages API: the brief's JSON Schema is a
// valid tool schema, a bad brief is answered next, and the target's
// request (with the brief in the handoff turn) keeps every provider rule.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  Agent,
  AiSdkChatClient,
  type ChatClient,
  HandoffBuilder,
  type HandoffMessage,
} from '../../src/index.js';
import {
  type AnthropicMessagesServer,
  startAnthropicMessagesServer,
} from '../support/anthropic-messages-server.js';
import { InvoiceBrief, TRIAGE_BRIEF } from '../support/brief-desk.js';
import {
  type OpenAICompatibleServer,
  startOpenAICompatibleServer,
} from '../support/openai-compatible-server.js';

let openai: OpenAICompatibleServer;
let anthropic: AnthropicMessagesServer;
beforeAll(async () => {
  openai = await startOpenAICompatibleServer({ apiKey: 'sk-briefs' });
  anthropic = await startAnthropicMessagesServer({ apiKey: 'ant-briefs' });
});
afterAll(async () => {
  await openai.close();
  await anthropic.close();
});

function desk(client: () => ChatClient) {
  const triage = new Agent({
    name: 'triage',
    instructions: 'Route the customer.',
    client: client(),
  });
  const billing = new Agent({
    name: 'billing',
    client: client(),
    instructions: (ctx) =>
      `You handle invoice ${(ctx.handoff?.brief as { invoiceId: string }).invoiceId}.`,
  });
  return new HandoffBuilder({ participants: [triage, billing] })
    .coordinator(triage)
    .addHandoff(triage, [billing], { brief: InvoiceBrief })
    .build();
}

const BILLING_VIEW_END =
  '[handoff from triage to billing]: Transferred to billing, adopting the role of billing ' +
  'immediately.\nBrief: {"reason":"charged twice","invoiceId":"INV-7"}';

describe('AiSdkChatClient: a handoff with a brief', () => {
  it('passes the strict OpenAI-compatible server’s rules, a refused brief’s retry included', async () => {
    openai.reset();
    const local = createOpenAICompatible({
      name: 'local',
      baseURL: openai.url,
      apiKey: 'sk-briefs',
    });
    openai.reply(
      { toolCalls: [{ id: 'call_1', name: 'handoff_to_billing', arguments: { reason: 'x' } }] },
      { toolCalls: [{ id: 'call_2', name: 'handoff_to_billing', arguments: TRIAGE_BRIEF }] },
      { text: 'INV-7 was charged twice. Refund one?' },
    );
    const result = await desk(() => new AiSdkChatClient(local.chatModel('m'))).run('Charged twice');

    openai.assertNoViolations();
    expect(result.pendingRequest).toMatchObject({
      agent: 'billing',
      prompt: 'INV-7 was charged twice. Refund one?',
    });
    const handoff = result.messages.find((m): m is HandoffMessage => m.type === 'HandoffMessage');
    expect(handoff?.brief).toEqual(TRIAGE_BRIEF);
    // Triage's model had another try in its one turn (maxToolIterations defaults to 1), which
    // answers the failed call first.
    expect(openai.requests).toHaveLength(3);
    const retry = openai.requests[1]?.body.messages as { role: string; content: unknown }[];
    expect(retry.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    const tools = openai.requests[0]?.body.tools as { function: { parameters: unknown } }[];
    expect(tools[0]?.function.parameters).toMatchObject({
      type: 'object',
      properties: { reason: { type: 'string' }, invoiceId: { type: 'string' } },
      required: ['reason', 'invoiceId'],
    });
    const billing = openai.requests[2]?.body.messages as { role: string; content: unknown }[];
    expect(billing[0]).toEqual({ role: 'system', content: 'You handle invoice INV-7.' });
    expect(billing.at(-1)).toEqual({ role: 'user', content: BILLING_VIEW_END });
  });

  it('passes the Anthropic Messages API’s rules', async () => {
    const provider = createAnthropic({ apiKey: 'ant-briefs', baseURL: anthropic.url });
    anthropic.reply(
      { toolCalls: [{ id: 'call_1', name: 'handoff_to_billing', input: TRIAGE_BRIEF }] },
      { text: 'INV-7 was charged twice. Refund one?' },
    );
    const result = await desk(() => new AiSdkChatClient(provider('claude-test'))).run('Charged');

    expect(anthropic.violations).toEqual([]);
    expect(result.pendingRequest?.prompt).toBe('INV-7 was charged twice. Refund one?');
    const billing = anthropic.requests[1]?.body;
    expect(billing?.system).toEqual([{ type: 'text', text: 'You handle invoice INV-7.' }]);
    expect(JSON.stringify(billing?.messages)).toContain(JSON.stringify(BILLING_VIEW_END));
  });
});
