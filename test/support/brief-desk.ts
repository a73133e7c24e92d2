import { z } from 'zod';

import {
  Agent,
  type CheckpointStore,
  HandoffBuilder,
  type HandoffWorkflow,
  type ModelRequest,
  ScriptedChatClient,
  type ScriptedStep,
  scriptedText,
  scriptedToolCall,
  tool,
} from '../../src/index.js';

/** The brief triage hands billing: why, and which invoice. */
export const InvoiceBrief = z.object({ reason: z.string(), invoiceId: z.string() });

/** What triage's model sends when it hands off. */
export const TRIAGE_BRIEF = { reason: 'charged twice', invoiceId: 'INV-7' };

/** Options of `briefDesk()`. */
export interface BriefDeskOptions {
  store?: CheckpointStore;
  /** The brief of triage's handoff to billing. @default InvoiceBrief */
  brief?: z.ZodObject;
  /** Triage's model answers. @default one handoff with TRIAGE_BRIEF */
  triage?: ScriptedStep[];
  /** Every model request of every agent, tagged with the agent. */
  requests?: { agent: string; request: ModelRequest }[];
}

/**
 * A support desk whose triage hands billing a brief `{reason, invoiceId}`: billing's instructions
 * name the invoice and who handed it over, and its `lookup_invoice` tool takes no arguments but
 * reads the invoice from the brief. Replies go to the agent that asked. Billing's model answers by
 * what it is shown, so any process (after a restart too) plays the same conversation.
 */
export function briefDesk(options: BriefDeskOptions = {}): HandoffWorkflow {
  const seen = options.requests;
  const lookup = tool({
    name: 'lookup_invoice',
    description: 'Looks up the invoice the customer was handed over with.',
    parameters: z.object({}),
    effect: 'read',
    execute: (_args, ctx) => {
      const brief = ctx.handoff?.brief as { invoiceId?: string } | undefined;
      return `${brief?.invoiceId ?? 'no invoice'}: $49.00, charged twice`;
    },
  });
  const triage = new Agent({
    name: 'triage',
    description: 'Routes the customer.',
    client: new ScriptedChatClient((request, i) => {
      seen?.push({ agent: 'triage', request });
      const steps = options.triage ?? [scriptedToolCall('handoff_to_billing', TRIAGE_BRIEF)];
      return steps[i] ?? scriptedText('Anything else?');
    }),
  });
  const billing = new Agent({
    name: 'billing',
    description: 'Invoices and refunds.',
    tools: [lookup],
    maxToolIterations: 2,
    instructions: (ctx) => {
      const brief = ctx.handoff?.brief as { invoiceId?: string; reason?: string } | undefined;
      return (
        `You handle billing. Handed over by ${ctx.handoff?.from ?? 'nobody'} ` +
        `for invoice ${brief?.invoiceId ?? 'unknown'} (${brief?.reason ?? 'no reason'}).`
      );
    },
    client: new ScriptedChatClient((request) => {
      seen?.push({ agent: 'billing', request });
      const last = request.messages.at(-1);
      if (last?.role === 'tool') return scriptedText(`${last.content}. Shall I refund one?`);
      if (last?.role === 'user' && last.content === 'yes') {
        const system = request.messages[0]?.content ?? '';
        return scriptedText(`Refunded one charge (${/invoice (\S+)/.exec(system)?.[1]}).`);
      }
      return scriptedToolCall('lookup_invoice', {});
    }),
  });
  const builder = new HandoffBuilder({ name: 'briefs', participants: [triage, billing] })
    .coordinator(triage)
    .addHandoff(triage, [billing], { brief: options.brief ?? InvoiceBrief })
    .withUserReplyRouting('last_agent');
  if (options.store !== undefined) builder.withCheckpointing(options.store);
  return builder.build();
}
