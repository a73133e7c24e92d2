// Independent black-box tests of API.md §11 across a tool-approval pause and its decision (issue 16).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  approve,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  TextMentionTermination,
  tool,
} from '../../../src/index.js';
import { named, one, parentId, type Sdk, startSdk } from './otel.js';

let sdk: Sdk;
beforeAll(() => {
  sdk = startSdk();
});
afterAll(async () => {
  await sdk.stop();
});

describe('an approval pause', () => {
  it('runs the approved tool under the deciding run, with the same conversation id', async () => {
    const refund = tool({
      name: 'refund',
      description: 'Refunds an invoice.',
      parameters: z.object({ invoiceId: z.string() }),
      needsApproval: true,
      execute: async ({ invoiceId }) => `Refunded ${invoiceId}.`,
    });
    const clerk = new Agent({
      name: 'clerk',
      tools: [refund],
      maxToolIterations: 2,
      client: new ScriptedChatClient(
        [scriptedToolCall('refund', { invoiceId: 'INV-7' }, 'call-r1'), scriptedText('Refunded.')],
        { model: 'clerk-model' },
      ),
    });
    const team = new RoundRobinGroupChat([clerk], {
      name: 'refunds',
      terminationCondition: new TextMentionTermination('Refunded.', { sources: ['clerk'] }),
    });
    const session = team.session('ap-1');

    const paused = await session.run('Refund INV-7.');
    expect(paused.status).toBe('awaiting_input');
    expect(paused.pendingRequest?.kind).toBe('approval');
    const first = sdk.spans();
    const wf1 = one(first, 'invoke_workflow refunds');
    expect(wf1.attributes['baton.run.status']).toBe('awaiting_input');
    expect(wf1.attributes['gen_ai.conversation.id']).toBe('ap-1');
    expect(named(first, 'execute_tool refund')).toEqual([]);
    expect(wf1.events.filter((e) => e.name === 'baton.termination')).toEqual([]);
    sdk.exporter.reset();

    const done = await session.run(approve('call-r1'));
    expect(done.status).toBe('terminated');
    const spans = sdk.spans();
    const wf2 = one(spans, 'invoke_workflow refunds');
    expect(wf2.attributes).toMatchObject({
      'gen_ai.conversation.id': 'ap-1',
      'baton.run.status': 'terminated',
      'baton.stop_reason': "Text 'Refunded.' mentioned",
    });
    const agent = one(spans, 'invoke_agent clerk');
    expect(parentId(agent)).toBe(wf2.spanContext().spanId);
    expect(agent.attributes['gen_ai.conversation.id']).toBe('ap-1');
    const exec = one(spans, 'execute_tool refund');
    expect(parentId(exec)).toBe(agent.spanContext().spanId);
    expect(exec.attributes).toMatchObject({
      'gen_ai.tool.name': 'refund',
      'gen_ai.tool.call.id': 'call-r1',
      'gen_ai.tool.type': 'function',
    });
    expect(parentId(one(spans, 'chat clerk-model'))).toBe(agent.spanContext().spanId);
    expect(wf2.events.filter((e) => e.name === 'baton.termination')).toEqual([
      expect.objectContaining({
        attributes: { 'baton.stop_reason': "Text 'Refunded.' mentioned" },
      }),
    ]);
  });
});
