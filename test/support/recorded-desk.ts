import { z } from 'zod';

import {
  Agent,
  type ChatClient,
  HandoffBuilder,
  type HandoffWorkflow,
  type ModelRequest,
  type ModelResult,
  TextMentionTermination,
  tool,
  type TerminationCondition,
  Handoff,
  type CheckpointStore,
  approve,
} from '../../src/index.js';

/**
 * The support desk the §19 tests record: triage hands refunds and breakdowns to billing; billing
 * looks an invoice up (a tool), asks the user, then refunds it (a tool that needs approval) and
 * says DONE, which stops the session; a breakdown it escalates to tech (its own `escalate`
 * handoff). Every model answers from its request (the latest user text, the latest tool result),
 * like a real model, so the desk can hold any number of conversations.
 */
export interface DeskOptions {
  billingInstructions?: string;
  /** The target of billing's `escalate` handoff. @default 'tech' */
  escalateTo?: string;
  /** Drop the lookup tool. */
  withoutLookup?: boolean;
  /** The amount the lookup tool reports. @default 80 */
  amount?: number;
  stop?: TerminationCondition;
  /** Receives `lookup <invoiceId>` each time the lookup tool runs. */
  executed?: string[];
  store?: CheckpointStore;
}

const usage = (p: number, c: number) => ({ promptTokens: p, completionTokens: c });

/** A client that answers from the request: the latest user text and what the thread holds. */
function client(answer: (request: ModelRequest) => Partial<ModelResult>): ChatClient {
  return {
    create: async (request) => ({
      content: null,
      toolCalls: [],
      usage: usage(10, 2),
      ...answer(request),
    }),
  };
}

const lastUser = (r: ModelRequest) =>
  [...r.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
const lastTool = (r: ModelRequest) => {
  const m = r.messages.at(-1);
  return m?.role === 'tool' ? m.content : undefined;
};
const call = (id: string, name: string, args: unknown) => ({
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
});

export function desk(options: DeskOptions = {}): HandoffWorkflow {
  const lookup = tool({
    name: 'lookup_invoice',
    description: 'Finds an invoice.',
    parameters: z.object({ invoiceId: z.string() }),
    execute: ({ invoiceId }) => {
      options.executed?.push(`lookup ${invoiceId}`);
      return `Invoice ${invoiceId} of ann@example.com: $${options.amount ?? 80}, paid.`;
    },
  });
  const refund = tool({
    name: 'refund',
    description: 'Refunds an invoice.',
    parameters: z.object({ invoiceId: z.string() }),
    needsApproval: true,
    execute: ({ invoiceId }) => `Refunded ${invoiceId}.`,
  });
  const triage = new Agent({
    name: 'triage',
    instructions: 'Route the customer.',
    client: client((r) =>
      /refund|invoice|broken/i.test(String(lastUser(r)))
        ? call('t1', 'handoff_to_billing', {})
        : { content: 'How can I help?' },
    ),
  });
  const billing = new Agent({
    name: 'billing',
    instructions: options.billingInstructions ?? 'Refund invoices.',
    tools: options.withoutLookup ? [refund] : [lookup, refund],
    handoffs: [new Handoff({ target: options.escalateTo ?? 'tech', name: 'escalate' })],
    maxToolIterations: 2,
    client: client((r) => {
      const text = String(lastUser(r));
      const result = lastTool(r);
      if (result?.startsWith('Refunded')) return { content: `${result} DONE`, usage: usage(30, 5) };
      if (result !== undefined) return { content: `${result} Shall I refund it?` };
      if (/INV-\d+ please/.test(text)) return call('b2', 'refund', { invoiceId: text.slice(0, 5) });
      if (r.messages.some((m) => m.role === 'user' && /broken/.test(String(m.content))))
        return call('b3', 'escalate', {});
      return call('b1', 'lookup_invoice', { invoiceId: 'INV-7' });
    }),
  });
  const tech = new Agent({
    name: 'tech',
    client: client(() => ({ content: 'Try restarting it.' })),
  });
  const sales = new Agent({ name: 'sales', client: client(() => ({ content: 'Buy more.' })) });
  const builder = new HandoffBuilder({ name: 'desk', participants: [triage, billing, tech, sales] })
    .coordinator(triage)
    .withUserReplyRouting('last_agent')
    .withTerminationCondition(options.stop ?? new TextMentionTermination('DONE'));
  if (options.store) builder.withCheckpointing(options.store);
  return builder.build();
}

/** The conversation the tests record: a greeting, a handoff, a tool, an approval and a stop. */
export async function refundConversation(workflow: HandoffWorkflow, id: string): Promise<void> {
  const session = workflow.session(id);
  for (const text of ['hello', 'I want a refund for an invoice', 'INV-7 please']) {
    await session.run(text);
  }
  await session.run(approve('b2'));
}
