import { z } from 'zod';

import { type Tool, tool } from '../agents/tool.js';

/** What the desk knows about the conversation (its `state`): every agent and tool reads it. */
export const DeskState = z.object({
  /** The invoice the customer is asking about. */
  invoiceId: z.string().nullable(),
  /** The customer named on that invoice. */
  customer: z.string().nullable(),
  /** The customer quoted an invoice on file: refunds beyond a duplicate charge are open to them. */
  verified: z.boolean(),
});
export type DeskState = z.infer<typeof DeskState>;
export const NEW_CUSTOMER: DeskState = { invoiceId: null, customer: null, verified: false };

interface Invoice {
  id: string;
  customer: string;
  amountCents: number;
  charges: number;
  refundedCents: number;
  /** Refunded in full by refunds: nothing is left to refund. */
  refundedInFull?: boolean;
}

interface Account {
  email: string;
  name: string;
  locked: boolean;
  resets: number;
  closed: boolean;
}

interface Ticket {
  id: string;
  service: string;
  summary: string;
}

const SERVICES: Record<string, { status: 'operational' | 'degraded'; note: string }> = {
  internet: {
    status: 'degraded',
    note: 'incident INC-7: packet loss in the north region since 08:10',
  },
  email: { status: 'operational', note: 'no incident' },
  app: { status: 'operational', note: 'version 4.2 released yesterday' },
};

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/**
 * The support desk's back office for the demo: invoices, accounts and tickets held in memory,
 * and the tools that read and change them. Every answer is computed from the store.
 */
export class DeskStore {
  readonly invoices = new Map<string, Invoice>([
    [
      'INV-1001',
      { id: 'INV-1001', customer: 'Ada Byron', amountCents: 4900, charges: 2, refundedCents: 0 },
    ],
    [
      'INV-1002',
      { id: 'INV-1002', customer: 'Ada Byron', amountCents: 12000, charges: 1, refundedCents: 0 },
    ],
    [
      'INV-1003',
      { id: 'INV-1003', customer: 'Grace Hopper', amountCents: 8900, charges: 2, refundedCents: 0 },
    ],
    [
      'INV-2001',
      { id: 'INV-2001', customer: 'Alan Turing', amountCents: 2500, charges: 1, refundedCents: 0 },
    ],
  ]);
  readonly accounts = new Map<string, Account>([
    [
      'ada@example.com',
      { email: 'ada@example.com', name: 'Ada Byron', locked: true, resets: 0, closed: false },
    ],
    [
      'alan@example.com',
      { email: 'alan@example.com', name: 'Alan Turing', locked: false, resets: 0, closed: false },
    ],
  ]);
  readonly tickets: Ticket[] = [];

  /**
   * Billing: look an invoice up; its JSON says how often it was charged. An invoice on file
   * identifies its customer: the desk's state records the invoice, the customer and `verified`.
   */
  readonly lookupInvoice: Tool<{ invoiceId: string }> = tool({
    name: 'lookup_invoice',
    description:
      'Looks up an invoice by id (e.g. INV-1001): amount, charges, refunds. Verifies the customer.',
    parameters: z.object({ invoiceId: z.string().regex(/^INV-\d+$/, 'an id like INV-1001') }),
    effect: 'read', // it changes nothing but the desk's state, committed with its step
    execute: ({ invoiceId }, ctx) => {
      const invoice = this.invoices.get(invoiceId);
      if (invoice === undefined) throw new Error(`No invoice ${invoiceId}.`);
      ctx.updateState((draft) => {
        draft.invoiceId = invoiceId;
        draft.customer = invoice.customer;
        draft.verified = true;
      });
      return {
        invoiceId,
        customer: invoice.customer,
        amount: dollars(invoice.amountCents),
        timesCharged: invoice.charges,
        refunded: dollars(invoice.refundedCents),
      };
    },
  });

  /** Billing: refund every charge beyond the first; a refund over $50 needs a person's approval. */
  readonly refundDuplicate: Tool<{ invoiceId: string }> = tool({
    name: 'refund_duplicate_charge',
    description: 'Refunds the charges of an invoice beyond the first one.',
    parameters: z.object({ invoiceId: z.string().regex(/^INV-\d+$/, 'an id like INV-1001') }),
    needsApproval: ({ invoiceId }) => {
      const invoice = this.invoices.get(invoiceId);
      return invoice !== undefined && (invoice.charges - 1) * invoice.amountCents > 5000;
    },
    execute: ({ invoiceId }) => {
      const invoice = this.invoices.get(invoiceId);
      if (invoice === undefined) throw new Error(`No invoice ${invoiceId}.`);
      if (invoice.refundedInFull === true)
        throw new Error(`${invoiceId} is refunded in full already.`);
      const extra = invoice.charges - 1;
      if (extra <= 0) throw new Error(`${invoiceId} was charged once; there is nothing to refund.`);
      const refund = extra * invoice.amountCents;
      invoice.refundedCents += refund;
      invoice.charges = 1;
      return {
        invoiceId,
        refunded: dollars(refund),
        refundId: `R-${invoiceId.slice(4)}-${this.tickets.length + 1}`,
      };
    },
  });

  /** Refunds: refund what is left of an invoice in full; always with a person's approval. */
  readonly refundInvoice: Tool<{ invoiceId: string }> = tool({
    name: 'refund_invoice',
    description: 'Refunds an invoice in full (what was paid and not refunded yet).',
    parameters: z.object({ invoiceId: z.string().regex(/^INV-\d+$/, 'an id like INV-1001') }),
    needsApproval: true,
    execute: ({ invoiceId }) => {
      const invoice = this.invoices.get(invoiceId);
      if (invoice === undefined) throw new Error(`No invoice ${invoiceId}.`);
      if (invoice.refundedInFull === true)
        throw new Error(`${invoiceId} is refunded in full already.`);
      // Every charge still standing (a duplicate refunded already is not one).
      const refund = invoice.charges * invoice.amountCents;
      invoice.refundedCents += refund;
      invoice.refundedInFull = true;
      return {
        invoiceId,
        refunded: dollars(refund),
        refundId: `R-${invoiceId.slice(4)}-${this.tickets.length + 1}`,
      };
    },
  });

  /** Technical: the status of a service. */
  readonly serviceStatus: Tool<{ service: string }> = tool({
    name: 'check_service_status',
    description: 'Reports the status of a service: internet, email or app.',
    parameters: z.object({ service: z.enum(['internet', 'email', 'app']) }),
    effect: 'read',
    execute: ({ service }) => ({ service, ...SERVICES[service] }),
  });

  /** Technical: open a ticket. */
  readonly createTicket: Tool<{ service: string; summary: string }> = tool({
    name: 'create_ticket',
    description: 'Opens a support ticket for a service problem.',
    parameters: z.object({ service: z.string().min(1), summary: z.string().min(3) }),
    execute: ({ service, summary }) => {
      const ticket = { id: `T-${1000 + this.tickets.length + 1}`, service, summary };
      this.tickets.push(ticket);
      return ticket;
    },
  });

  /** Account: unlock an account and send a password reset link. */
  readonly resetPassword: Tool<{ email: string }> = tool({
    name: 'reset_password',
    description: 'Unlocks an account and emails a password reset link.',
    parameters: z.object({ email: z.string().email() }),
    execute: ({ email }) => {
      const account = this.accounts.get(email.toLowerCase());
      if (account === undefined) throw new Error(`No account for ${email}.`);
      const wasLocked = account.locked;
      account.locked = false;
      account.resets++;
      return { email: account.email, wasLocked, resetLinkSent: true };
    },
  });

  /** Account: close an account at the customer's request. */
  readonly closeAccount: Tool<{ email: string }> = tool({
    name: 'close_account',
    description: 'Closes (cancels) the account registered under an email address.',
    parameters: z.object({ email: z.string().email() }),
    execute: ({ email }) => {
      const account = this.accounts.get(email.toLowerCase());
      if (account === undefined) throw new Error(`No account for ${email}.`);
      if (account.closed) throw new Error(`The account of ${account.email} is closed already.`);
      account.closed = true;
      return { email: account.email, closed: true };
    },
  });
}
