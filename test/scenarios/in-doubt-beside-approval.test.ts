// API.md §17 with §10: "an approval decision is the start of its call". A batch whose "once" call
// was cut off while it ran also holds a call that needs approval and was never asked for: that
// call never started (nobody approved it), so it is not in doubt; once the call in doubt is
// decided, the turn asks for its approval as it would have.
import { z } from 'zod';
import { expect, it } from 'vitest';

import { Agent, approve, HandoffBuilder, ScriptedChatClient, tool } from '../../src/index.js';

it('a call that needs approval and was never approved is asked for, not reported in doubt', async () => {
  const runs: string[] = [];
  const controller = new AbortController();
  const charge = tool({
    name: 'charge',
    description: 'Charges a card.',
    parameters: z.object({}),
    execute: (_args, ctx) => {
      runs.push(`charge@${ctx.callId}`);
      if (runs.length > 1) return 'Charged.';
      controller.abort();
      return new Promise<string>(() => {});
    },
  });
  const refund = tool({
    name: 'refund',
    description: 'Refunds an invoice.',
    parameters: z.object({}),
    needsApproval: true,
    execute: (_args, ctx) => {
      runs.push(`refund@${ctx.callId}`);
      return 'Refunded.';
    },
  });
  const client = new ScriptedChatClient((request) =>
    request.messages.some((m) => m.role === 'tool')
      ? { content: 'Done.' }
      : {
          toolCalls: [
            { id: 'c1', name: 'charge', arguments: '{}' },
            { id: 'c2', name: 'refund', arguments: '{}' },
          ],
        },
  );
  const clerk = new Agent({ name: 'clerk', client, tools: [charge, refund], maxToolIterations: 2 });
  const workflow = new HandoffBuilder({ name: 'shop', participants: [clerk] })
    .coordinator(clerk)
    .build();

  expect((await workflow.run('Charge and refund', { signal: controller.signal })).status).toBe(
    'cancelled',
  );
  const paused = await workflow.run();
  expect(paused.pendingRequest).toMatchObject({
    kind: 'in_doubt',
    prompt: 'In doubt (may or may not have completed): charge({})',
    calls: [{ id: 'c1', name: 'charge', arguments: '{}' }],
  });
  const asked = await workflow.run(approve('c1'));
  expect(asked.pendingRequest).toMatchObject({
    kind: 'approval',
    calls: [{ id: 'c2', name: 'refund', arguments: '{}' }],
  });
  expect(runs).toEqual(['charge@c1', 'charge@c1']);
  const done = await workflow.run(approve('c2'));
  expect(done.messages.filter((m) => m.type === 'TextMessage').map((m) => m.content)).toEqual([
    'Done.',
  ]);
  expect(runs).toEqual(['charge@c1', 'charge@c1', 'refund@c2']);
});
