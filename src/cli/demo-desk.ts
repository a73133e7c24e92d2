import { Agent } from '../agents/agent.js';
import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import type { ChatClient } from '../models/chat-client.js';
import { HandoffBuilder } from '../orchestrations/handoff/handoff-builder.js';
import type { HandoffWorkflow } from '../orchestrations/handoff/handoff-workflow.js';
import { MaxMessageTermination } from '../termination/budget-conditions.js';
import { ExternalTermination } from '../termination/control-conditions.js';
import { FarewellTermination } from './demo-farewell.js';
import type { DeskRole } from './demo-model.js';
import { DeskStore } from './demo-store.js';

/** The demo's support desk: the workflow, its store, and the condition Ctrl-C sets. */
export interface SupportDesk {
  readonly workflow: HandoffWorkflow;
  readonly store: DeskStore;
  readonly stop: ExternalTermination;
}

/**
 * Builds the support desk: a triage coordinator and billing, technical and account specialists
 * (billing may escalate to technical), with tools over an in-memory store. The session ends when
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
    instructions:
      'You are the billing specialist. Look invoices up before answering, offer to refund duplicate ' +
      'charges and refund only after the customer agrees. If the problem is technical, hand off to ' +
      'technical. Keep answers to two sentences.',
    client: clientFor('billing'),
    stream: true,
    tools: [store.lookupInvoice, store.refundDuplicate],
    maxToolIterations: 3,
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
    participants: [triage, billing, technical, account],
  });
  if (options.checkpointStore !== undefined)
    builder = builder.withCheckpointing(options.checkpointStore);
  const workflow = builder
    .coordinator(triage)
    .addHandoff(billing, [technical], {
      description: 'Escalate a technical cause of a billing problem.',
    })
    .withTerminationCondition(new FarewellTermination().or(new MaxMessageTermination(60)).or(stop))
    .build();
  return { workflow, store, stop };
}
