// Shared builders for the operators suite (public API only): a desk whose refund needs a supervisor.
import { z } from 'zod';

import {
  Agent,
  HandoffBuilder,
  ScriptedChatClient,
  scriptedText,
  tool,
  type CheckpointStore,
  type ModelResult,
} from '../../../src/index.js';

export function refundCall(id: string, invoiceId: string): ModelResult {
  return {
    content: null,
    toolCalls: [{ id, name: 'refund', arguments: JSON.stringify({ invoiceId }) }],
    usage: { promptTokens: 0, completionTokens: 0 },
  };
}

/** A desk agent whose `refund` needs the approval of a "supervisor"; counts the refunds run. */
export function supervisedDesk(
  store?: CheckpointStore,
  script?: ConstructorParameters<typeof ScriptedChatClient>[0],
) {
  const runs: string[] = [];
  const refund = tool({
    name: 'refund',
    description: 'Refunds an invoice.',
    parameters: z.object({ invoiceId: z.string() }),
    needsApproval: true,
    approvers: 'supervisor',
    execute: ({ invoiceId }) => {
      runs.push(invoiceId);
      return `Refunded ${invoiceId}.`;
    },
  });
  const client = new ScriptedChatClient(
    script ?? [refundCall('c1', 'INV-1'), scriptedText('Your refund is on its way.')],
  );
  const desk = new Agent({ name: 'desk', client, tools: [refund] });
  let builder = new HandoffBuilder({ name: 'support', participants: [desk] }).coordinator(desk);
  if (store !== undefined) builder = builder.withCheckpointing(store);
  return { workflow: builder.build(), runs, client };
}
