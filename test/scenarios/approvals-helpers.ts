import { z } from 'zod';

import {
  Agent,
  type AgentMessage,
  type CheckpointStore,
  type FunctionCall,
  HandoffBuilder,
  messageToText,
  ScriptedChatClient,
  type ScriptedStep,
  tool,
} from '../../src/index.js';

/** `Type(source): text` per message, with the text a console shows. */
export function lines(messages: readonly AgentMessage[]): string[] {
  return messages.map((m) => {
    const text = messageToText(m);
    return `${m.type}(${m.source})${text === '' ? '' : `: ${text}`}`;
  });
}

/** A model answer with these calls, ids as given. */
export function calls(...list: [id: string, name: string, args?: unknown][]): ScriptedStep {
  return {
    content: null,
    toolCalls: list.map(([id, name, args]): FunctionCall => ({
      id,
      name,
      arguments: JSON.stringify(args ?? {}),
    })),
  };
}

/**
 * The support desk of the approval tests: `refund` needs approval (or over `limit` dollars when
 * given), `lookup` does not. `runs` logs each execution as `name:invoiceId@callId`.
 */
export function deskTools(options: { limit?: number } = {}) {
  const runs: string[] = [];
  const refund = tool({
    name: 'refund',
    description: 'Refunds an invoice.',
    parameters: z.object({ invoiceId: z.string(), amount: z.number().optional() }),
    needsApproval:
      options.limit === undefined ? true : ({ amount }) => (amount ?? 0) > (options.limit ?? 0),
    execute: ({ invoiceId }, ctx) => {
      runs.push(`refund:${invoiceId}@${ctx.callId}`);
      return `Refunded ${invoiceId}.`;
    },
  });
  const lookup = tool({
    name: 'lookup',
    description: 'Finds an invoice.',
    parameters: z.object({ invoiceId: z.string() }),
    effect: 'read',
    execute: ({ invoiceId }, ctx) => {
      runs.push(`lookup:${invoiceId}@${ctx.callId}`);
      return `Invoice ${invoiceId}: $80, paid.`;
    },
  });
  return { runs, refund, lookup };
}

/** A one-agent HandoffBuilder workflow whose agent `billing` plays `steps`. */
export function billingDesk(
  steps: readonly ScriptedStep[],
  options: { store?: CheckpointStore; limit?: number; maxToolIterations?: number } = {},
) {
  const tools = deskTools(options.limit === undefined ? {} : { limit: options.limit });
  const client = new ScriptedChatClient(steps);
  const billing = new Agent({
    name: 'billing',
    client,
    tools: [tools.lookup, tools.refund],
    maxToolIterations: options.maxToolIterations ?? 2,
  });
  const builder = new HandoffBuilder({ name: 'desk', participants: [billing] }).coordinator(
    billing,
  );
  if (options.store !== undefined) builder.withCheckpointing(options.store);
  return { ...tools, client, billing, workflow: builder.build() };
}
