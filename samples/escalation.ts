// Specialist → specialist escalation: billing may hand off to technical (addHandoff). A
// HandoffTermination("technical") stops the session there, so a human can review the escalation;
// run() without a task then continues exactly where it stopped, with technical.
//
// Run it: npx tsx samples/escalation.ts
import { pathToFileURL } from 'node:url';

import { z } from 'zod';

import {
  Agent,
  Console,
  HandoffBuilder,
  HandoffTermination,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  tool,
} from '../src/index.js';

const paymentLog = tool({
  name: 'payment_log',
  description: 'The last payment attempts of an invoice.',
  parameters: z.object({ invoiceId: z.string() }),
  execute: ({ invoiceId }) => `${invoiceId}: 3 attempts, all failed with "gateway timeout (504)"`,
});

const triage = new Agent({
  name: 'triage',
  description: 'Routes requests to a specialist.',
  client: new ScriptedChatClient([scriptedToolCall('handoff_to_billing')]),
});
const billing = new Agent({
  name: 'billing',
  description: 'Invoices and payments.',
  tools: [paymentLog],
  maxToolIterations: 2,
  client: new ScriptedChatClient([
    scriptedToolCall('payment_log', { invoiceId: 'INV-1002' }),
    scriptedToolCall('handoff_to_technical'),
  ]),
});
const technical = new Agent({
  name: 'technical',
  description: 'Gateways, outages and errors.',
  client: new ScriptedChatClient([
    scriptedText(
      'The payment gateway timed out; I restarted it. Please try paying INV-1002 again.',
    ),
  ]),
});

/** triage → billing → technical, stopping for review when billing escalates. */
export const workflow = new HandoffBuilder({
  name: 'escalation',
  participants: [triage, billing, technical],
})
  .coordinator(triage)
  .addHandoff(billing, [technical], {
    description: 'Escalate payment failures caused by our systems.',
  })
  .withTerminationCondition(new HandoffTermination('technical'))
  .build();

async function main(): Promise<void> {
  const first = await Console(workflow.runStream('My payment for INV-1002 keeps failing.'), {
    outputStats: true,
  });
  console.log(`\nStopped for review: ${first.stopReason}\n`);
  // The condition was reset when it fired; run() continues with the next speaker: technical.
  const second = await Console(workflow.runStream(), { outputStats: true });
  console.log(`\n${second.pendingRequest?.agent} asks the user: ${second.pendingRequest?.prompt}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
