// Independent black-box tests of API.md §11 on a HandoffBuilder desk (issue 16).
import { trace } from '@opentelemetry/api';
import { DataPointType } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  tool,
} from '../../../src/index.js';
import { ERROR, everything, named, one, parentId, type Sdk, startSdk } from './otel.js';

let sdk: Sdk;
beforeAll(() => {
  sdk = startSdk();
});
afterAll(async () => {
  await sdk.stop();
});
beforeEach(() => {
  sdk.exporter.reset();
});

const lookup = tool({
  name: 'lookup_invoice',
  description: 'Looks an invoice up.',
  parameters: z.object({ invoiceId: z.string() }),
  execute: async ({ invoiceId }) => {
    if (invoiceId === 'BAD') throw new RangeError(`No invoice ${invoiceId}.`);
    return `${invoiceId} is paid.`;
  },
});

function desk(invoice = 'INV-1', store?: MemoryCheckpointStore) {
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient(
      (_req, i) =>
        i === 0
          ? scriptedToolCall('handoff_to_billing', {}, 'call-h1')
          : scriptedText('Anything else?', { promptTokens: 3, completionTokens: 2 }),
      { model: 'triage-model' },
    ),
  });
  const billing = new Agent({
    name: 'billing',
    tools: [lookup],
    maxToolIterations: 3,
    client: new ScriptedChatClient(
      [
        scriptedToolCall('lookup_invoice', { invoiceId: invoice }, 'call-1'),
        scriptedText('Your invoice is paid.', { promptTokens: 30, completionTokens: 6 }),
      ],
      { model: 'billing-model' },
    ),
  });
  let b = new HandoffBuilder({ name: 'support', participants: [triage, billing] }).coordinator(
    triage,
  );
  if (store) b = b.withCheckpointing(store);
  return b.build();
}

function childrenOf(spans: readonly ReadableSpan[], parent: ReadableSpan): string[] {
  return spans
    .filter((s) => parentId(s) === parent.spanContext().spanId)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
    .map((s) => s.name);
}

describe('a handoff desk', () => {
  it('names the spans and nests workflow ⊃ agent ⊃ chat / execute_tool', async () => {
    const result = await desk().session('desk-1').run('Is my invoice paid?');
    expect(result.status).toBe('awaiting_input');
    const spans = sdk.spans();
    const wf = one(spans, 'invoke_workflow support');
    const triage = one(spans, 'invoke_agent triage');
    const billing = one(spans, 'invoke_agent billing');
    expect(parentId(triage)).toBe(wf.spanContext().spanId);
    expect(parentId(billing)).toBe(wf.spanContext().spanId);
    expect(childrenOf(spans, wf)).toEqual(['invoke_agent triage', 'invoke_agent billing']);
    // The handoff tool is intercepted, never "executed": only model calls under triage.
    expect(
      childrenOf(spans, triage).filter((n) => n !== 'execute_tool handoff_to_billing'),
    ).toEqual(['chat triage-model']);
    expect(childrenOf(spans, billing)).toEqual([
      'chat billing-model',
      'execute_tool lookup_invoice',
      'chat billing-model',
    ]);
    for (const s of spans) expect(s.spanContext().traceId).toBe(wf.spanContext().traceId);
    expect(parentId(wf)).toBeUndefined();
  });

  it('carries the §11 attributes on each span kind', async () => {
    const result = await desk().session('desk-2').run('Is my invoice paid?');
    const spans = sdk.spans();
    const wf = one(spans, 'invoke_workflow support');
    expect(wf.attributes['gen_ai.operation.name']).toBe('invoke_workflow');
    expect(wf.attributes['gen_ai.conversation.id']).toBe('desk-2');
    expect(wf.attributes['baton.workflow.name']).toBe('support');
    expect(wf.attributes['baton.run.status']).toBe(result.status);
    expect(wf.attributes['baton.run.status']).toBe('awaiting_input');

    const agent = one(spans, 'invoke_agent billing');
    expect(agent.attributes['gen_ai.operation.name']).toBe('invoke_agent');
    expect(agent.attributes['gen_ai.agent.name']).toBe('billing');
    expect(agent.attributes['gen_ai.conversation.id']).toBe('desk-2');

    const chats = named(spans, 'chat billing-model');
    expect(chats).toHaveLength(2);
    const last = chats.find((c) => c.attributes['gen_ai.usage.input_tokens'] === 30);
    expect(last).toBeDefined();
    const a = (last as ReadableSpan).attributes;
    expect(a['gen_ai.operation.name']).toBe('chat');
    expect(a['gen_ai.request.model']).toBe('billing-model');
    expect(a['gen_ai.response.model']).toBe('billing-model');
    expect(a['gen_ai.usage.output_tokens']).toBe(6);
    expect(typeof a['gen_ai.provider.name']).toBe('string');
    expect((a['gen_ai.provider.name'] as string).length).toBeGreaterThan(0);
    expect(a['gen_ai.response.finish_reasons']).toEqual(['stop']);
    const first = chats.find((c) => c !== last) as ReadableSpan;
    expect(first.attributes['gen_ai.response.finish_reasons']).toEqual(['tool_calls']);

    const exec = one(spans, 'execute_tool lookup_invoice');
    expect(exec.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_invoice',
      'gen_ai.tool.call.id': 'call-1',
      'gen_ai.tool.type': 'function',
    });
    expect(exec.status.code).not.toBe(ERROR);
  });

  it('records the handoff as a baton.handoff event on the source agent span', async () => {
    await desk().session('desk-3').run('Is my invoice paid?');
    const spans = sdk.spans();
    const triage = one(spans, 'invoke_agent triage');
    const events = triage.events.filter((e) => e.name === 'baton.handoff');
    expect(events).toHaveLength(1);
    expect(events[0]?.attributes).toEqual({
      'baton.handoff.source': 'triage',
      'baton.handoff.target': 'billing',
    });
    expect(
      one(spans, 'invoke_agent billing').events.filter((e) => e.name === 'baton.handoff'),
    ).toEqual([]);
  });

  it('a throwing tool sets ERROR with error.type on its execute_tool span', async () => {
    const result = await desk('BAD').session('desk-4').run('Is BAD paid?');
    expect(result.status).toBe('awaiting_input');
    const exec = one(sdk.spans(), 'execute_tool lookup_invoice');
    expect(exec.status.code).toBe(ERROR);
    expect(exec.attributes['error.type']).toBe('RangeError');
  });

  it('a failing model call sets ERROR with error.type on its chat span', async () => {
    const broken = new Agent({
      name: 'triage',
      client: new ScriptedChatClient([new TypeError('connection reset')], { model: 'm1' }),
    });
    const other = new Agent({ name: 'billing', client: new ScriptedChatClient([]) });
    const wf = new HandoffBuilder({ name: 'support', participants: [broken, other] })
      .coordinator(broken)
      .build();
    await expect(wf.session('desk-5').run('hi')).rejects.toThrow(/connection reset/);
    const spans = sdk.spans();
    const chat = one(spans, 'chat m1');
    expect(chat.status.code).toBe(ERROR);
    expect(chat.attributes['error.type']).toBe('TypeError');
    // The failure reaches the spans above it, which still end.
    expect(one(spans, 'invoke_agent triage').status.code).toBe(ERROR);
    expect(one(spans, 'invoke_workflow support').status.code).toBe(ERROR);
  });

  it("a run started inside the caller's active span is its child", async () => {
    const tracer = trace.getTracer('caller');
    await tracer.startActiveSpan('POST /chat', async (span) => {
      await desk().session('desk-6').run('Is my invoice paid?');
      span.end();
    });
    const spans = sdk.spans();
    const caller = one(spans, 'POST /chat');
    const wf = one(spans, 'invoke_workflow support');
    expect(parentId(wf)).toBe(caller.spanContext().spanId);
    expect(wf.spanContext().traceId).toBe(caller.spanContext().traceId);
  });

  it('keeps message content out of spans by default', async () => {
    await desk().session('desk-7').run('Is my invoice paid?');
    const all = everything(sdk.spans());
    expect(all).not.toContain('gen_ai.input.messages');
    expect(all).not.toContain('gen_ai.output.messages');
    expect(all).not.toContain('Is my invoice paid?');
    expect(all).not.toContain('Your invoice is paid.');
  });

  it('a session resumed from a second workflow object carries the same conversation id', async () => {
    const store = new MemoryCheckpointStore();
    const first = await desk('INV-1', store).session('resumed-1').run('Is my invoice paid?');
    expect(first.status).toBe('awaiting_input');
    sdk.exporter.reset();
    const second = await desk('INV-1', store).session('resumed-1').run('Thanks!');
    expect(second.sessionId).toBe('resumed-1');
    const spans = sdk.spans();
    const wf = one(spans, 'invoke_workflow support');
    expect(wf.attributes['gen_ai.conversation.id']).toBe('resumed-1');
    const agents = spans.filter((s) => s.name.startsWith('invoke_agent '));
    expect(agents.length).toBeGreaterThan(0);
    for (const a of agents) {
      expect(a.attributes['gen_ai.conversation.id']).toBe('resumed-1');
      expect(parentId(a)).toBe(wf.spanContext().spanId);
    }
  });

  it('records token usage and operation duration histograms', async () => {
    await sdk.histograms(); // baseline
    const before = await sdk.histograms();
    const baseCount = (before.get('gen_ai.client.operation.duration')?.dataPoints ?? []).reduce(
      (n, p) => n + p.value.count,
      0,
    );
    await desk().session('desk-8').run('Is my invoice paid?');
    const h = await sdk.histograms();
    const usage = h.get('gen_ai.client.token.usage');
    const duration = h.get('gen_ai.client.operation.duration');
    expect(usage?.descriptor.unit).toBe('{token}');
    expect(duration?.descriptor.unit).toBe('s');
    expect(usage?.dataPointType).toBe(DataPointType.HISTOGRAM);
    expect(duration?.dataPointType).toBe(DataPointType.HISTOGRAM);
    const types = new Set(usage?.dataPoints.map((p) => p.attributes['gen_ai.token.type']));
    expect(types).toEqual(new Set(['input', 'output']));
    const billingInput = usage?.dataPoints.find(
      (p) =>
        p.attributes['gen_ai.token.type'] === 'input' &&
        p.attributes['gen_ai.request.model'] === 'billing-model',
    );
    // Cumulative: at least this run's 30 input tokens of the billing model.
    expect(billingInput?.value.sum).toBeGreaterThanOrEqual(30);
    const count = (duration?.dataPoints ?? []).reduce((n, p) => n + p.value.count, 0);
    // Three model calls in this run (triage 1, billing 2).
    expect(count - baseCount).toBe(3);
    for (const p of duration?.dataPoints ?? []) {
      expect(p.attributes['gen_ai.operation.name']).toBe('chat');
      expect(p.value.min ?? 0).toBeGreaterThanOrEqual(0);
    }
  });
});
