import { z } from 'zod';

import {
  Agent,
  type CheckpointStore,
  HandoffBuilder,
  type HandoffWorkflow,
  type ModelRequest,
  ScriptedChatClient,
  type ScriptedStep,
  tool,
  speakerOf,
} from '../../src/index.js';

/** A gate a model call waits on while the user's text says "slow" (tests open it). */
export class Gate {
  #open: () => void = () => {};
  #opened: Promise<void> = this.#fresh();
  /** Calls waiting at the gate now. */
  waiting = 0;

  #fresh(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#open = resolve;
    });
  }

  async pass(): Promise<void> {
    this.waiting++;
    try {
      await this.#opened;
    } finally {
      this.waiting--;
    }
  }

  /** Lets the waiting calls (and later ones) through; `close()` makes later ones wait again. */
  open(): void {
    this.#open();
  }

  close(): void {
    this.#opened = this.#fresh();
  }
}

const lastUser = (request: ModelRequest): string => {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i];
    if (m !== undefined && speakerOf(m) === 'user') return m.content ?? '';
  }
  return '';
};

const lastIsToolResult = (request: ModelRequest, prefix: string): boolean => {
  const m = request.messages.at(-1);
  return m?.role === 'tool' && m.content.startsWith(prefix);
};

/**
 * What a stream shows of a desk turn that is not a refund, as `<id> <event>`: the user's message,
 * triage's answer streamed in two chunks, its question, the result.
 */
export const HELLO_TURN = [
  '2.1 TextMessage',
  '3.0.1 ModelClientStreamingChunkEvent',
  '3.0.2 ModelClientStreamingChunkEvent',
  '3.1 TextMessage',
  '3.2 UserInputRequestedEvent',
  '3.3 result',
];

/**
 * The support desk of the serve tests: `triage` (coordinator) hands "refund" requests to
 * `billing` and answers anything else with a streamed question; `billing` calls `refund`
 * (approval needed, call id `refund-<n>`) and then says what happened. A user text containing
 * "slow" makes triage wait at `gate` first.
 */
export function serveDesk(options: { store?: CheckpointStore; gate?: Gate } = {}) {
  const gate = options.gate ?? new Gate();
  const refunds: string[] = [];
  let calls = 0;
  const refund = tool({
    name: 'refund',
    description: 'Refunds an invoice.',
    parameters: z.object({ invoiceId: z.string() }),
    needsApproval: true,
    execute: ({ invoiceId }, ctx) => {
      refunds.push(`${invoiceId}@${ctx.callId}`);
      return `Refunded invoice ${invoiceId}.`;
    },
  });
  const triage = new Agent({
    name: 'triage',
    description: 'Routes the customer.',
    stream: true,
    client: new ScriptedChatClient(async (request): Promise<ScriptedStep> => {
      const text = lastUser(request);
      if (text.includes('slow')) await gate.pass();
      if (text.includes('refund')) {
        return {
          content: null,
          toolCalls: [{ id: `h-${++calls}`, name: 'handoff_to_billing', arguments: '{}' }],
        };
      }
      return { chunks: ['How can ', 'I help?'] };
    }),
  });
  const billing = new Agent({
    name: 'billing',
    description: 'Refunds invoices.',
    tools: [refund],
    maxToolIterations: 2,
    client: new ScriptedChatClient((request): ScriptedStep => {
      if (lastIsToolResult(request, 'Refunded')) return { content: 'Your refund is done.' };
      if (lastIsToolResult(request, 'Tool call "refund" was rejected'))
        return { content: 'No refund then.' };
      return {
        content: null,
        toolCalls: [{ id: `refund-${++calls}`, name: 'refund', arguments: '{"invoiceId":"42"}' }],
      };
    }),
  });
  const builder = new HandoffBuilder({ name: 'desk', participants: [triage, billing] }).coordinator(
    triage,
  );
  if (options.store !== undefined) builder.withCheckpointing(options.store);
  const workflow: HandoffWorkflow = builder.build();
  return { workflow, gate, refunds };
}
