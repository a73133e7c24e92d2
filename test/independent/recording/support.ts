// Shared builders for the independent §19 suite (recordings and replay), public API only.
import { z } from 'zod';

import {
  Agent,
  type AgentMessage,
  HandoffBuilder,
  type ModelRequest,
  ScriptedChatClient,
  speakerOf,
  tool,
} from '../../../src/index.js';

export const lastUser = (request: ModelRequest) => {
  const found = request.messages.filter((m) => speakerOf(m) === 'user').at(-1);
  return typeof found?.content === 'string' ? found.content : '';
};
type LLM = { role: string; content?: string | null };
export const lastMessage = (request: ModelRequest) => (request.messages as LLM[]).at(-1);

let seq = 0;
export const nextId = (prefix: string) => `${prefix}-${++seq}`;

export interface DeskOptions {
  /** billing has its `lookup` tool. @default true */
  lookup?: boolean;
  /** An extra participant `tech`. */
  tech?: boolean;
  routing?: 'coordinator' | 'last_agent';
}

/**
 * triage (coordinator) always hands off to billing. billing: a text containing "invoice <n>"
 * calls `lookup {invoiceId: n}` (result `invoice <n> is paid, card on file <text>`), then answers
 * `Found: <result>`; a text containing "refund" calls `refund` (needs approval) then answers
 * `Refund: <result>`; any other text gets `Billing: <text>` (a pause).
 */
export function desk(options: DeskOptions = {}) {
  const executions: string[] = [];
  const lookup = tool({
    name: 'lookup',
    description: 'Looks an invoice up.',
    parameters: z.object({ invoiceId: z.string(), note: z.string() }),
    execute: async ({ invoiceId, note }) => {
      executions.push(`lookup ${invoiceId}`);
      return `invoice ${invoiceId} is paid (${note})`;
    },
  });
  const refund = tool({
    name: 'refund',
    description: 'Refunds an invoice.',
    parameters: z.object({ invoiceId: z.string() }),
    needsApproval: true,
    execute: async ({ invoiceId }) => {
      executions.push(`refund ${invoiceId}`);
      return `refunded ${invoiceId}`;
    },
  });
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient(() => ({
      content: null,
      toolCalls: [{ id: nextId('handoff'), name: 'handoff_to_billing', arguments: '{}' }],
      usage: { promptTokens: 10, completionTokens: 2 },
    })),
  });
  const billing = new Agent({
    name: 'billing',
    tools: options.lookup === false ? [refund] : [lookup, refund],
    maxToolIterations: 3,
    client: new ScriptedChatClient((request) => {
      const last = lastMessage(request);
      const text = lastUser(request);
      const usage = { promptTokens: 30, completionTokens: 7 };
      if (last?.role === 'tool') {
        return {
          content: `${text.includes('refund') ? 'Refund' : 'Found'}: ${last.content}`,
          usage,
        };
      }
      const invoice = /invoice (\d+)/.exec(text);
      if (invoice) {
        return {
          content: null,
          toolCalls: [
            {
              id: nextId('lookup'),
              name: 'lookup',
              arguments: JSON.stringify({ invoiceId: invoice[1], note: text }),
            },
          ],
          usage,
        };
      }
      if (text.includes('refund')) {
        return {
          content: null,
          toolCalls: [{ id: nextId('refund'), name: 'refund', arguments: '{"invoiceId":"7"}' }],
          usage,
        };
      }
      return { content: `Billing: ${text}`, usage };
    }),
  });
  const participants = [triage, billing];
  if (options.tech) {
    participants.push(
      new Agent({ name: 'tech', client: new ScriptedChatClient(() => ({ content: 'tech' })) }),
    );
  }
  let builder = new HandoffBuilder({ name: 'desk', participants }).coordinator(triage);
  if (options.routing) builder = builder.withUserReplyRouting(options.routing);
  return { workflow: builder.build(), executions };
}

export const chatTexts = (messages: readonly AgentMessage[]) =>
  messages
    .filter((m) => m.type === 'TextMessage' || m.type === 'HandoffMessage')
    .map((m) => `${m.source}: ${(m as { content: string }).content}`);
