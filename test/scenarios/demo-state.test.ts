// Issue 32, last part: the demo desk keeps a conversation state. Looking an invoice up records it,
// its customer and `verified`; the specialists' instructions read it; the handoffs to refunds (a
// full refund of an invoice) are guarded by `isVerified`; the demo prints the state at the end.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { FileCheckpointStore } from '../../src/checkpoint/file-checkpoint-store.js';
import { type DemoTerminal, runDemo } from '../../src/cli/demo.js';
import { createSupportDesk } from '../../src/cli/demo-desk.js';
import { type DeskRole, OfflineDeskModel } from '../../src/cli/demo-model.js';
import { approve } from '../../src/messages/message-factories.js';
import type { TaskResult } from '../../src/engine/runnable.js';
import type { ChatClient, ModelRequest } from '../../src/models/chat-client.js';

const offlineEnv = { PATH: process.env.PATH ?? '' };
const scratch = () => mkdtempSync(join(tmpdir(), 'baton-demo-state-'));

function scriptedTerminal(lines: string[]): DemoTerminal & { output: () => string } {
  const written: string[] = [];
  const queue = [...lines];
  return {
    color: false,
    echoInput: true,
    write: (text) => written.push(text),
    onInterrupt: () => {},
    ask: async () => queue.shift() ?? null,
    output: () => written.join(''),
  };
}

interface Seen {
  role: DeskRole;
  system: string | undefined;
  tools: string[];
}

/** The offline desk model, recording what each role's request offered and its system prompt. */
function recordingDesk() {
  const requests: Seen[] = [];
  const note = (role: DeskRole, request: ModelRequest) => {
    const first = request.messages[0];
    requests.push({
      role,
      system: first?.role === 'system' ? first.content : undefined,
      tools: (request.tools ?? []).map((t) => t.name),
    });
  };
  const clientFor = (role: DeskRole): ChatClient => {
    const model = new OfflineDeskModel(role);
    return {
      model: model.model,
      provider: model.provider,
      create: (request) => {
        note(role, request);
        return model.create(request);
      },
      createStream: (request) => {
        note(role, request);
        return model.createStream(request);
      },
    };
  };
  const desk = createSupportDesk(clientFor);
  const offersRefunds = (role: DeskRole) =>
    requests.filter((r) => r.role === role).map((r) => r.tools.includes('handoff_to_refunds'));
  return { desk, requests, offersRefunds };
}

const BILLING =
  'You are the billing specialist. Look invoices up before answering, offer to refund duplicate ' +
  'charges and refund only after the customer agrees. A full refund of an invoice is for ' +
  'refunds. If the problem is technical, hand off to technical. Keep answers to two sentences.';

describe('the demo desk keeps a conversation state', () => {
  it("ends the README's scenario with the invoice, its customer and verified, and prints it", async () => {
    const directory = scratch();
    const terminal = scriptedTerminal([
      'I was charged twice for invoice INV-1003',
      'yes please',
      'y',
      'bye',
    ]);
    expect(
      await runDemo(terminal, { env: offlineEnv, storeDirectory: directory, sessionId: 'readme' }),
    ).toBe(0);
    const out = terminal.output();
    // The README's quoted line plays unchanged: billing still pays duplicate charges itself.
    expect(out).toContain(
      'billing wants to run refund_duplicate_charge({"invoiceId":"INV-1003"}). Approve? [y/N] y\n',
    );
    // The state is the last line, after the summary.
    expect(out).toMatch(/\(time at the prompt not counted\)\nDesk state: [^\n]*\n$/);
    expect(
      out.endsWith(
        '\nDesk state: {"invoiceId":"INV-1003","customer":"Grace Hopper","verified":true}\n',
      ),
    ).toBe(true);
    // The same value, read from the stored session by another copy of the desk.
    const again = createSupportDesk((role) => new OfflineDeskModel(role), {
      checkpointStore: new FileCheckpointStore(directory),
    });
    expect(await again.workflow.session('readme').state()).toEqual({
      invoiceId: 'INV-1003',
      customer: 'Grace Hopper',
      verified: true,
    });
  });

  it('offers refunds to billing only from the model call after the lookup that verified', async () => {
    const { desk, requests, offersRefunds } = recordingDesk();
    const session = desk.workflow.session('s1');
    expect(await session.state()).toEqual({ invoiceId: null, customer: null, verified: false });
    await session.run('I was charged twice for invoice INV-1003');
    // Triage's first call, billing's before the lookup: no refunds; billing's after it: offered.
    expect(offersRefunds('triage')).toEqual([false]);
    expect(offersRefunds('billing')).toEqual([false, true]);
    // Billing's instructions are computed from the state before each of its model calls.
    expect(requests.filter((r) => r.role === 'billing').map((r) => r.system)).toEqual([
      `${BILLING} No invoice is on record yet: look the invoice up first, which verifies the customer.`,
      `${BILLING} The customer is Grace Hopper, verified by invoice INV-1003.`,
    ]);
    await session.run('yes please');
    expect(offersRefunds('triage')).toEqual([false, true]);
    expect(requests.at(-1)?.tools).toEqual([
      'lookup_invoice',
      'refund_duplicate_charge',
      'handoff_to_technical',
      'handoff_to_refunds',
    ]);
  });

  it('names the guard on both handoffs to refunds in the Mermaid of the desk', () => {
    const { desk } = recordingDesk();
    expect(
      desk.workflow
        .toMermaid()
        .split('\n')
        .filter((line) => line.includes('isVerified'))
        .map((line) => line.trim()),
    ).toEqual([
      'n_triage -->|handoff_to_refunds [isVerified]| n_refunds',
      'n_billing -->|handoff_to_refunds [isVerified]| n_refunds',
    ]);
  });

  it('refunds an invoice in full in one turn: the lookup verifies, billing hands over, a person approves', async () => {
    const { desk, requests } = recordingDesk();
    const session = desk.workflow.session('full');
    const paused = await session.run('I want a full refund for invoice INV-1002');
    expect(paused.status).toBe('awaiting_input');
    expect(paused.pendingRequest?.kind).toBe('approval');
    expect(paused.pendingRequest?.agent).toBe('refunds');
    expect(paused.pendingRequest?.calls?.map((c) => [c.name, c.arguments])).toEqual([
      ['refund_invoice', '{"invoiceId":"INV-1002"}'],
    ]);
    // Refunds' instructions are computed from the state the lookup recorded.
    expect(requests.find((r) => r.role === 'refunds')?.system).toBe(
      'You are the refunds specialist. Refund the invoice in full when the customer asks for it; ' +
        'a person approves every full refund. Keep answers to two sentences. ' +
        'The customer is Ada Byron, verified by invoice INV-1002.',
    );
    const calls = paused.pendingRequest?.calls ?? [];
    const done = await session.run(calls.map((c) => approve(c.id)));
    expect(done.pendingRequest?.prompt).toBe(
      'Done: $120.00 refunded in full on INV-1002 (refund R-1002-1). It shows on your statement within 3 days.',
    );
    expect(desk.store.invoices.get('INV-1002')).toMatchObject({ charges: 1, refundedCents: 12000 });
    expect(await session.state()).toEqual({
      invoiceId: 'INV-1002',
      customer: 'Ada Byron',
      verified: true,
    });
  });

  it('refunds in full what still stands after a duplicate refund, and only once', async () => {
    const { desk } = recordingDesk();
    const session = desk.workflow.session('twice');
    const approveAll = async (result: TaskResult) =>
      session.run((result.pendingRequest?.calls ?? []).map((c) => approve(c.id)));
    await session.run('I was charged twice for invoice INV-1003');
    await approveAll(await session.run('yes please'));
    expect(desk.store.invoices.get('INV-1003')).toMatchObject({ charges: 1, refundedCents: 8900 });
    const full = await session.run('I want a full refund for invoice INV-1003');
    expect(full.pendingRequest?.agent).toBe('refunds');
    expect((await approveAll(full)).pendingRequest?.prompt).toBe(
      'Done: $89.00 refunded in full on INV-1003 (refund R-1003-1). It shows on your statement within 3 days.',
    );
    expect(desk.store.invoices.get('INV-1003')).toMatchObject({ refundedCents: 17800 });
    const again = await session.run('I want my money back for INV-1003');
    expect((await approveAll(again)).pendingRequest?.prompt).toBe(
      'That did not work: Tool "refund_invoice" failed: INV-1003 is refunded in full already.',
    );
    expect(desk.store.invoices.get('INV-1003')).toMatchObject({ refundedCents: 17800 });
  });

  it('never offers refunds for an invoice not on file: the state stays unverified', async () => {
    const { desk, requests, offersRefunds } = recordingDesk();
    const session = desk.workflow.session('unknown');
    const result = await session.run('I want my money back for INV-9999');
    expect(result.pendingRequest?.agent).toBe('billing');
    expect(result.pendingRequest?.prompt).toBe(
      'That did not work: Tool "lookup_invoice" failed: No invoice INV-9999. Which invoice is it about (e.g. INV-1001)?',
    );
    expect(offersRefunds('triage')).toEqual([false]);
    expect(offersRefunds('billing')).toEqual([false, false]);
    expect(requests.some((r) => r.role === 'refunds')).toBe(false);
    expect(await session.state()).toEqual({ invoiceId: null, customer: null, verified: false });
  });
});
