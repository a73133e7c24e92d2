// Issue 45: a call in doubt of a tool with approvers waits for the same roles.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  approve,
  ConfigError,
  HandoffBuilder,
  MemoryCheckpointStore,
  resolve,
  ScriptedChatClient,
  scriptedText,
  tool,
} from '../../../src/index.js';
import { refundCall } from './desk.js';

describe('a call in doubt of a tool with approvers', () => {
  it('waits for the approvers; the owner is refused, a supervisor resolves it', async () => {
    const cancel = new AbortController();
    const refund = tool({
      name: 'refund',
      description: 'Refunds an invoice.',
      parameters: z.object({ invoiceId: z.string() }),
      needsApproval: true,
      approvers: ['supervisor'],
      execute: (_args, ctx) =>
        new Promise((_resolve, fail) => {
          ctx.signal.addEventListener('abort', () => fail(ctx.signal.reason));
          cancel.abort();
        }),
    });
    const client = new ScriptedChatClient([refundCall('c1', 'INV-1'), scriptedText('Done.')]);
    const desk = new Agent({ name: 'desk', client, tools: [refund] });
    const workflow = new HandoffBuilder({ name: 'support', participants: [desk] })
      .coordinator(desk)
      .withCheckpointing(new MemoryCheckpointStore())
      .build();
    const session = workflow.session('doubt');
    await session.run('Refund INV-1');
    const supervisor = { id: 'sup-1', roles: ['supervisor'] };
    const cancelled = await session.run(approve('c1'), {
      principal: supervisor,
      signal: cancel.signal,
    });
    expect(cancelled.status).toBe('cancelled');
    const doubt = await session.run();
    expect(doubt.pendingRequest).toMatchObject({ kind: 'in_doubt', waitingFor: ['supervisor'] });
    const owner = { id: 'cust-1', roles: [] };
    await expect(session.run(resolve('c1', 'Refunded.'), { principal: owner })).rejects.toThrow(
      ConfigError,
    );
    const done = await session.run(resolve('c1', 'Refunded.'), { principal: supervisor });
    expect(done.status).toBe('awaiting_input');
    const decisions = (await session.messages()).filter(
      (m) => m.type === 'ToolApprovalResponseEvent',
    );
    expect(decisions.map((m) => m.metadata.principal)).toEqual([
      { id: 'sup-1', roles: ['supervisor'] },
      { id: 'sup-1', roles: ['supervisor'] },
    ]);
  });
});
