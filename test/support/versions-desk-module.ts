/**
 * A desk as two builds have it, for `baton sessions check` (test/scenarios/sessions-check-cli.test.ts):
 * VD_BUILD=`same` is the build that wrote the sessions, `no-refund` one whose billing agent lost its
 * `refund` tool.
 */
import { z } from 'zod';

import { Agent, HandoffBuilder, ScriptedChatClient, tool } from '../../src/index.js';

export const refund = tool({
  name: 'refund',
  description: 'Refunds a charge.',
  parameters: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: ({ amount }) => `refunded ${amount}`,
});

/** The desk; `client` plays the model of both agents (nothing is run by the check). */
export function versionsDesk(build: string, client = new ScriptedChatClient([])) {
  return new HandoffBuilder({
    name: 'desk',
    participants: [
      new Agent({ name: 'triage', client }),
      new Agent({ name: 'billing', client, tools: build === 'no-refund' ? [] : [refund] }),
    ],
  })
    .coordinator('triage')
    .build();
}

export const workflow = versionsDesk(process.env.VD_BUILD ?? 'same');
