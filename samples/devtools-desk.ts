// A support desk to drive from `baton dev`: triage hands billing questions to billing and line
// problems to technical, who takes a while to think (long enough to press Stop). The models are
// deterministic functions (ScriptedChatClient with a step function), so any conversation works
// offline and always the same. It exports what the CLI can use:
//   workflow                 the built workflow (`baton run|graph|dev samples/devtools-desk.ts`);
//   createWorkflow(options)  the same on a given checkpoint store (`--store .baton`);
//   terminationCondition     so the devtools page shows how close it is to firing.
//
// Run it: npx tsx samples/devtools-desk.ts
import { pathToFileURL } from 'node:url';

import { z } from 'zod';

import {
  Agent,
  type CheckpointStore,
  Console,
  HandoffBuilder,
  type LLMMessage,
  MaxMessageTermination,
  type ModelRequest,
  ScriptedChatClient,
  type ScriptedStep,
  scriptedText,
  scriptedToolCall,
  speakerOf,
  TextMentionTermination,
  TokenUsageTermination,
  tool,
} from '../src/index.js';

/** Ends a session when the user says "bye", after 40 messages or after 5,000 tokens. */
const stopRule = () =>
  new TextMentionTermination('bye', { sources: ['user'] })
    .or(new MaxMessageTermination(40))
    .or(new TokenUsageTermination({ maxTotalToken: 5000 }));

/**
 * The rule's configuration, for `baton dev` to show its progress (it reads `toJSON()`; each
 * session's counters come from the session). Every workflow gets its own condition object.
 */
export const terminationCondition = stopRule();

// Other agents' turns reach a model as user messages too: `speakerOf` tells the user's apart.
const lastUser = (messages: readonly LLMMessage[]) =>
  messages.findLast((m) => speakerOf(m) === 'user')?.content ?? '';

/** The result at the end of the request, if the model is being answered by a tool. */
const toolResult = (messages: readonly LLMMessage[]) => {
  const last = messages.at(-1);
  return last?.role === 'tool' ? last.content : undefined;
};

/** Token usage as a real model would report it, estimated from characters (4 per token). */
const usage = (request: ModelRequest, text: string) => ({
  promptTokens: Math.ceil(JSON.stringify(request.messages).length / 4),
  completionTokens: Math.ceil(text.length / 4),
});

const say = (request: ModelRequest, text: string): ScriptedStep =>
  scriptedText(text, usage(request, text));

/** Waits `ms` milliseconds; a Stop (the run's signal) ends the wait at once. */
const think = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => clearTimeout(timer), { once: true });
  });

function triageStep(request: ModelRequest): ScriptedStep {
  const text = lastUser(request.messages);
  // The brief each handoff carries (the workflow's default: a reason) is shown on the page.
  if (/invoice|charge|refund|INV-\d+/i.test(text))
    return scriptedToolCall('handoff_to_billing', { reason: 'a billing question' });
  if (/internet|line|slow|down|outage/i.test(text))
    return scriptedToolCall('handoff_to_technical', { reason: 'a problem with the line' });
  // A reply without a topic ("yes please") goes back to the specialist who asked.
  const asker = request.messages
    .map(speakerOf)
    .findLast((speaker) => speaker === 'billing' || speaker === 'technical');
  if (asker !== undefined) return scriptedToolCall(`handoff_to_${asker}`);
  return say(request, 'Hello! Is it about an invoice or a problem with your line?');
}

/** The invoice the customer talks about: the latest one named, else INV-1001. */
const invoiceOf = (messages: readonly LLMMessage[]) =>
  messages
    .filter((m) => m.role === 'user')
    .map((m) => /INV-\d+/i.exec(m.content)?.[0]?.toUpperCase())
    .findLast((id) => id !== undefined) ?? 'INV-1001';

function billingStep(request: ModelRequest): ScriptedStep {
  const result = toolResult(request.messages);
  const invoiceId = invoiceOf(request.messages);
  if (result?.startsWith('Tool call "refund_duplicate_charge" was rejected'))
    return say(request, `Understood: no refund on ${invoiceId}. Anything else?`);
  if (result?.includes('"refunded"')) {
    const refunded = (JSON.parse(result) as { refunded: number }).refunded;
    return say(request, `Done: $${refunded} refunded on ${invoiceId}. Anything else?`);
  }
  if (result !== undefined) {
    const amount = (JSON.parse(result) as { amount?: number }).amount;
    return say(
      request,
      `${invoiceId} ($${amount}) was charged twice. Shall I refund the duplicate?`,
    );
  }
  if (/\b(yes|please|ok|sure)\b/i.test(lastUser(request.messages)))
    return scriptedToolCall('refund_duplicate_charge', { invoiceId });
  return scriptedToolCall('lookup_invoice', { invoiceId });
}

/** Options of `createWorkflow()`. */
export interface DevtoolsDeskOptions {
  /** Where sessions are checkpointed; without it they live in memory. */
  checkpointStore?: CheckpointStore;
  /** How long technical thinks before its line test, in milliseconds. @default 20000 */
  thinkMs?: number;
}

/** Builds the desk; the CLI calls this with `--store <dir>`. */
export function createWorkflow(options: DevtoolsDeskOptions = {}) {
  const invoices = new Map([
    ['INV-1001', { amount: 49, charges: 2 }],
    ['INV-1003', { amount: 89, charges: 2 }],
  ]);
  const lookupInvoice = tool({
    name: 'lookup_invoice',
    description: 'Looks an invoice up by id.',
    parameters: z.object({ invoiceId: z.string() }),
    effect: 'read',
    execute: ({ invoiceId }) => ({ invoiceId, ...invoices.get(invoiceId) }),
  });
  const refund = tool({
    name: 'refund_duplicate_charge',
    description: 'Refunds the charges of an invoice beyond the first.',
    parameters: z.object({ invoiceId: z.string() }),
    // A person approves refunds over $50 (the Approve / Reject buttons of `baton dev`).
    needsApproval: ({ invoiceId }) => (invoices.get(invoiceId)?.amount ?? 0) > 50,
    execute: ({ invoiceId }) => {
      const invoice = invoices.get(invoiceId);
      if (!invoice || invoice.charges < 2) throw new Error(`Nothing to refund on ${invoiceId}.`);
      invoice.charges = 1;
      return { invoiceId, refunded: invoice.amount };
    },
  });
  const lineTest = tool({
    name: 'run_line_test',
    description: "Tests the customer's line.",
    parameters: z.object({}),
    effect: 'read',
    execute: () => ({ packetLoss: '12%', ticket: 'T-1' }),
  });

  const triage = new Agent({
    name: 'triage',
    description: 'Routes each request to the right specialist.',
    client: new ScriptedChatClient(triageStep),
  });
  const billing = new Agent({
    name: 'billing',
    description: 'Invoices, duplicate charges and refunds.',
    tools: [lookupInvoice, refund],
    maxToolIterations: 2,
    client: new ScriptedChatClient(billingStep),
  });
  const technical = new Agent({
    name: 'technical',
    description: 'Line problems; thinks for a while before testing the line.',
    tools: [lineTest],
    maxToolIterations: 2,
    client: new ScriptedChatClient(async (request) => {
      if (toolResult(request.messages) !== undefined)
        return say(
          request,
          'The line test shows 12% packet loss; ticket T-1 is open. Anything else?',
        );
      await think(options.thinkMs ?? 20_000, request.signal);
      return scriptedToolCall('run_line_test');
    }),
  });

  let builder = new HandoffBuilder({
    name: 'devtools-desk',
    participants: [triage, billing, technical],
  });
  if (options.checkpointStore !== undefined)
    builder = builder.withCheckpointing(options.checkpointStore);
  return builder
    .coordinator(triage)
    .addHandoff(billing, [technical])
    .withTerminationCondition(stopRule())
    .build();
}

/** The desk with sessions in memory. */
export const workflow = createWorkflow();

async function main(): Promise<void> {
  const session = workflow.session('sample');
  for (const reply of ['I was charged twice for INV-1001', 'yes please', 'thanks, bye']) {
    console.log(`\nuser> ${reply}`);
    const result = await Console(session.runStream(reply));
    console.log(`[${result.status}${result.stopReason ? `: ${result.stopReason}` : ''}]`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
