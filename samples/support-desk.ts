// The demo's support desk as a plain program: a triage coordinator routes to billing, technical
// and account specialists; billing may escalate to technical; the user is asked whenever an agent
// answers. Scripted models replay one conversation, so the program runs offline and always the same.
//
// Run it: npx tsx samples/support-desk.ts
import { pathToFileURL } from 'node:url';

import { z } from 'zod';

import {
  Agent,
  Console,
  HandoffBuilder,
  MaxMessageTermination,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  TextMentionTermination,
  tool,
} from '../src/index.js';

const invoices = new Map([['INV-1001', { amount: 49, charges: 2 }]]);

const lookupInvoice = tool({
  name: 'lookup_invoice',
  description: 'Looks an invoice up by id.',
  parameters: z.object({ invoiceId: z.string() }),
  execute: ({ invoiceId }) => {
    const invoice = invoices.get(invoiceId);
    if (!invoice) throw new Error(`No invoice ${invoiceId}.`);
    return { invoiceId, ...invoice };
  },
});
const refund = tool({
  name: 'refund_duplicate_charge',
  description: 'Refunds the charges of an invoice beyond the first.',
  parameters: z.object({ invoiceId: z.string() }),
  execute: ({ invoiceId }) => {
    const invoice = invoices.get(invoiceId);
    if (!invoice || invoice.charges < 2) throw new Error(`Nothing to refund on ${invoiceId}.`);
    const refunded = (invoice.charges - 1) * invoice.amount;
    invoice.charges = 1;
    return { invoiceId, refunded };
  },
});

const triage = new Agent({
  name: 'triage',
  description: 'Routes each request to the right specialist.',
  instructions:
    'Hand off billing questions to billing, technical ones to technical, sign-in ones to account.',
  client: new ScriptedChatClient([
    scriptedToolCall('handoff_to_billing'),
    scriptedToolCall('handoff_to_billing'),
  ]),
});
const billing = new Agent({
  name: 'billing',
  description: 'Invoices, duplicate charges and refunds.',
  tools: [lookupInvoice, refund],
  maxToolIterations: 2,
  client: new ScriptedChatClient([
    scriptedToolCall('lookup_invoice', { invoiceId: 'INV-1001' }),
    scriptedText('INV-1001 ($49) was charged twice. Shall I refund the duplicate?', {
      promptTokens: 120,
      completionTokens: 16,
    }),
    scriptedToolCall('refund_duplicate_charge', { invoiceId: 'INV-1001' }),
    scriptedText('Done: $49 refunded on INV-1001.', { promptTokens: 180, completionTokens: 9 }),
  ]),
});
const technical = new Agent({
  name: 'technical',
  description: 'Outages and errors.',
  client: new ScriptedChatClient([]),
});
const account = new Agent({
  name: 'account',
  description: 'Passwords and sign-in.',
  client: new ScriptedChatClient([]),
});

/** The desk: the session ends when the user says "bye" or after 40 messages. */
export const workflow = new HandoffBuilder({
  name: 'support-desk',
  participants: [triage, billing, technical, account],
})
  .coordinator(triage)
  .addHandoff(billing, [technical])
  .withTerminationCondition(
    new TextMentionTermination('bye', { sources: ['user'] }).or(new MaxMessageTermination(40)),
  )
  .build();

async function main(): Promise<void> {
  const session = workflow.session('sample');
  for (const reply of ['I was charged twice for INV-1001', 'yes please', 'thanks, bye']) {
    console.log(`\nuser> ${reply}`);
    const result = await Console(session.runStream(reply));
    console.log(`[${result.status}${result.stopReason ? `: ${result.stopReason}` : ''}]`);
  }
  console.log(`\nINV-1001 is now charged ${invoices.get('INV-1001')?.charges} time(s).`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
