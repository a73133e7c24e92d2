import { Agent } from '../agents/agent.js';
import type { StateValue } from '../agents/conversation-state.js';
import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import type { ChatClient } from '../models/chat-client.js';
import { HandoffBuilder } from '../orchestrations/handoff/handoff-builder.js';
import type { HandoffWorkflow } from '../orchestrations/handoff/handoff-workflow.js';
import { MaxMessageTermination } from '../termination/budget-conditions.js';
import { ExternalTermination } from '../termination/control-conditions.js';
import { FarewellTermination } from './demo-farewell.js';
import type { DeskRole } from './demo-model.js';
import { DeskState, DeskStore, NEW_CUSTOMER } from './demo-store.js';

/** What the desk's state says about the customer, for a specialist's instructions. */
export function customerNote(state: StateValue): string {
  const known = DeskState.safeParse(state);
  if (!known.success || known.data.invoiceId === null) {
    return 'No invoice is on record yet: look the invoice up first, which verifies the customer.';
  }
  const { invoiceId, customer, verified } = known.data;
  return verified
    ? `The customer is ${customer ?? 'unknown'}, verified by invoice ${invoiceId}.`
    : `The customer asked about invoice ${invoiceId} but is not verified.`;
}

/** The guard of the handoffs to refunds: only a verified customer is refunded in full. */
function isVerified(state: StateValue): boolean {
  return state.verified === true;
}

/** The demo's support desk: the workflow, its store, and the condition Ctrl-C sets. */
export interface SupportDesk {
  readonly workflow: HandoffWorkflow;
  readonly store: DeskStore;
  readonly stop: ExternalTermination;
}

/**
 * Builds the support desk: a triage coordinator and billing, refunds, technical and account
 * specialists (billing may escalate to technical, and to refunds once the customer is verified),
 * with tools over an in-memory store. Its state (`DeskState`) records the invoice, the customer and
 * whether they are verified; looking an invoice up verifies its customer. The session ends when
 * the user says goodbye (a message that is a farewell, not "bye" inside a sentence), after 60
 * messages, or when `stop` is set.
 */
export function createSupportDesk(
  clientFor: (role: DeskRole) => ChatClient,
  options: { checkpointStore?: CheckpointStore } = {},
): SupportDesk {
  const store = new DeskStore();
  const triage = new Agent({
    name: 'triage',
    description: 'Greets the customer and routes the request to the right specialist.',
    instructions:
      'You are the triage agent of a support desk. Decide whether the request is about billing ' +
      '(invoices, charges, refunds), a technical problem (internet, email, the app) or the account ' +
      '(passwords, locked accounts, cancelling or closing the account) and hand off to that ' +
      'specialist at once. If it is unclear, ask ' +
      'one short question.',
    client: clientFor('triage'),
    stream: true,
  });
  const billing = new Agent({
    name: 'billing',
    description: 'Invoices, duplicate charges and refunds.',
    instructions: ({ state }) =>
      'You are the billing specialist. Look invoices up before answering, offer to refund duplicate ' +
      'charges and refund only after the customer agrees. A full refund of an invoice is for ' +
      'refunds. If the problem is technical, hand off to technical. Keep answers to two sentences. ' +
      customerNote(state),
    client: clientFor('billing'),
    stream: true,
    tools: [store.lookupInvoice, store.refundDuplicate],
    maxToolIterations: 3,
  });
  const refunds = new Agent({
    name: 'refunds',
    description: 'Refunds an invoice in full, for a verified customer.',
    instructions: ({ state }) =>
      'You are the refunds specialist. Refund the invoice in full when the customer asks for it; ' +
      'a person approves every full refund. Keep answers to two sentences. ' +
      customerNote(state),
    client: clientFor('refunds'),
    stream: true,
    tools: [store.refundInvoice],
    maxToolIterations: 2,
  });
  const technical = new Agent({
    name: 'technical',
    description: 'Outages and problems with internet, email or the app.',
    instructions:
      'You are the technical specialist. Check the service status before answering and offer a ' +
      'ticket when something is broken. Keep answers to two sentences.',
    client: clientFor('technical'),
    stream: true,
    tools: [store.serviceStatus, store.createTicket],
    maxToolIterations: 3,
  });
  const account = new Agent({
    name: 'account',
    description: 'Sign-in problems, locked accounts, password resets and account cancellations.',
    instructions:
      'You are the account specialist. Ask for the sign-in email, then reset the password; when ' +
      'the customer wants to cancel, close the account under that email. Keep answers to two ' +
      'sentences.',
    client: clientFor('account'),
    stream: true,
    tools: [store.resetPassword, store.closeAccount],
    maxToolIterations: 3,
  });
  const stop = new ExternalTermination();
  let builder = new HandoffBuilder({
    name: 'support-desk',
    participants: [triage, billing, refunds, technical, account],
    state: { schema: DeskState, initial: NEW_CUSTOMER },
  });
  if (options.checkpointStore !== undefined)
    builder = builder.withCheckpointing(options.checkpointStore);
  const workflow = builder
    .coordinator(triage)
    .addHandoff(billing, [technical], {
      description: 'Escalate a technical cause of a billing problem.',
    })
    // Refunds in full only for a verified customer: triage's edge to refunds is guarded too.
    .addHandoff(billing, [refunds], {
      description: 'Refund an invoice in full (the customer is verified).',
      when: isVerified,
    })
    .addHandoff(triage, [refunds], { when: isVerified })
    .withTerminationCondition(new FarewellTermination().or(new MaxMessageTermination(60)).or(stop))
    .build();
  return { workflow, store, stop };
}
