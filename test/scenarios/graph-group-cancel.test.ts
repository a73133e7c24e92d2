// A graph step in which two nodes paused for approval (issue 27 #4), cancelled while the approved
// call of one node runs (issue 27 #7): the run ends cancelled, the turn stays paused, and the
// next runs finish both nodes with every call run once per decision.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';

import {
  Agent,
  approve,
  GraphBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
  textMessage,
  tool,
} from '../../src/index.js';
import { calls, lines } from './approvals-helpers.js';

describe('a graph cancelled while an approved call of a paused group runs', () => {
  it('ends cancelled, runs the call again with the same id, then finishes both nodes', async () => {
    const runs: string[] = [];
    let hold: ((signal: AbortSignal) => Promise<void>) | undefined;
    const refund = tool({
      name: 'refund',
      description: 'Refunds an invoice.',
      parameters: z.object({ invoiceId: z.string() }),
      needsApproval: true,
      // Runs again after a cancel (API.md §17); a "once" tool would be in doubt.
      effect: 'idempotent',
      execute: async ({ invoiceId }, ctx) => {
        runs.push(`refund:${invoiceId}@${ctx.callId}`);
        await hold?.(ctx.signal);
        return `Refunded ${invoiceId}.`;
      },
    });
    const agent = (name: string, invoice: string, id: string) =>
      new Agent({
        name,
        client: new ScriptedChatClient([
          calls([id, 'refund', { invoiceId: invoice }]),
          scriptedText(`${name} done.`),
        ]),
        tools: [refund],
        maxToolIterations: 2,
      });
    const flow = new GraphBuilder({ name: 'desk' })
      .addNode({
        name: 'intake',
        description: 'intake',
        respond: async () => ({ chatMessage: textMessage({ source: 'intake', content: 'ok' }) }),
      })
      .addNode(agent('billing', 'INV-1', 'b1'))
      .addNode(agent('refunds', 'INV-2', 'r1'))
      .addEdge('intake', ['billing', 'refunds'])
      .withCheckpointing(new MemoryCheckpointStore())
      .build();
    const session = flow.session('s');
    const paused = await session.run('refund both');
    expect(paused.pendingRequest?.calls?.map((c) => c.id)).toEqual(['b1', 'r1']);

    const controller = new AbortController();
    hold = (signal) =>
      new Promise((_, fail) => {
        signal.addEventListener('abort', () => fail(signal.reason as Error), { once: true });
        queueMicrotask(() => controller.abort());
      });
    const cancelled = await session.run(approve('b1'), { signal: controller.signal });
    expect(cancelled.status).toBe('cancelled');
    hold = undefined;

    const resumed = await session.run();
    expect(resumed.status).toBe('awaiting_input');
    expect(resumed.pendingRequest?.calls?.map((c) => c.id)).toEqual(['r1']);
    const done = await session.run(approve('r1'));
    expect(done.status).toBe('terminated');
    expect(runs).toEqual(['refund:INV-1@b1', 'refund:INV-1@b1', 'refund:INV-2@r1']);
    expect(lines(await session.messages()).filter((l) => l.startsWith('TextMessage'))).toEqual([
      'TextMessage(user): refund both',
      'TextMessage(intake): ok',
      'TextMessage(billing): billing done.',
      'TextMessage(refunds): refunds done.',
    ]);
  });
});
