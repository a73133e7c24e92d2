import { readFileSync } from 'node:fs';

import { trace } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  HandoffBuilder,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  TextMentionTermination,
  tool,
} from '../../src/index.js';
import { installTestTelemetry, only, outline, type TestTelemetry } from '../support/otel-sdk.js';

let otel: TestTelemetry;
beforeAll(() => {
  otel = installTestTelemetry();
});
afterEach(async () => {
  await otel.clear();
  vi.unstubAllEnvs();
});
afterAll(() => otel.shutdown());

const lookupInvoice = tool({
  name: 'lookup_invoice',
  description: 'Looks an invoice up.',
  parameters: z.object({ invoiceId: z.string() }),
  execute: ({ invoiceId }) => {
    if (invoiceId === 'INV-404') throw new RangeError(`No invoice ${invoiceId}.`);
    return `${invoiceId}: paid`;
  },
});

/** triage (model "triage-model") hands off to billing (no model name), who looks an invoice up. */
function desk(options: { invoice?: string } = {}) {
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient([scriptedToolCall('handoff_to_billing', {}, 'call-h1')], {
      model: 'triage-model',
    }),
  });
  const billing = new Agent({
    name: 'billing',
    tools: [lookupInvoice],
    maxToolIterations: 2,
    client: new ScriptedChatClient([
      scriptedToolCall('lookup_invoice', { invoiceId: options.invoice ?? 'INV-1' }, 'call-1'),
      scriptedText('INV-1 is paid.', { promptTokens: 30, completionTokens: 6 }),
    ]),
  });
  return new HandoffBuilder({ name: 'desk', participants: [triage, billing] })
    .coordinator(triage)
    .withTerminationCondition(new TextMentionTermination('bye', { sources: ['user'] }))
    .build();
}

describe('tracing a handoff desk (API.md §11)', () => {
  it('nests workflow ⊃ agent ⊃ chat / execute_tool with the GenAI attributes', async () => {
    const result = await desk().session('s1').run('Is INV-1 paid?');
    expect(result.status).toBe('awaiting_input');
    const spans = otel.spans();
    expect(outline(spans)).toEqual([
      'invoke_workflow desk',
      '  invoke_agent triage',
      '    chat triage-model',
      '  invoke_agent billing',
      '    chat',
      '    execute_tool lookup_invoice',
      '    chat',
    ]);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const { version } = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect(new Set(spans.map((s) => JSON.stringify(s.scope)))).toEqual(
      new Set([JSON.stringify({ name: 'baton', version })]),
    );

    const run = only(spans, 'invoke_workflow desk');
    expect(run.kind).toBe('internal');
    expect(run.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.conversation.id': 's1',
      'baton.workflow.name': 'desk',
      'baton.run.status': 'awaiting_input',
    });
    expect(run.events).toEqual([]);
    expect(run.status).toEqual({ code: 'unset' });

    const triage = only(spans, 'invoke_agent triage');
    expect(triage.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'triage',
      'gen_ai.conversation.id': 's1',
    });
    expect(triage.events).toEqual([
      {
        name: 'baton.handoff',
        attributes: { 'baton.handoff.source': 'triage', 'baton.handoff.target': 'billing' },
      },
    ]);
    expect(only(spans, 'invoke_agent billing').events).toEqual([]);

    const chat = only(spans, 'chat triage-model');
    expect(chat.kind).toBe('client');
    expect(chat.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'baton.scripted',
      'gen_ai.request.model': 'triage-model',
      'gen_ai.response.model': 'triage-model',
      'gen_ai.usage.input_tokens': 0,
      'gen_ai.usage.output_tokens': 0,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    const answers = spans.filter((s) => s.name === 'chat');
    expect(answers.map((s) => s.attributes)).toEqual([
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'baton.scripted',
        'gen_ai.usage.input_tokens': 0,
        'gen_ai.usage.output_tokens': 0,
        'gen_ai.response.finish_reasons': ['tool_calls'],
      },
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'baton.scripted',
        'gen_ai.usage.input_tokens': 30,
        'gen_ai.usage.output_tokens': 6,
        'gen_ai.response.finish_reasons': ['stop'],
      },
    ]);

    const lookup = only(spans, 'execute_tool lookup_invoice');
    expect(lookup.kind).toBe('internal');
    expect(lookup.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_invoice',
      'gen_ai.tool.call.id': 'call-1',
      'gen_ai.tool.type': 'function',
    });
    expect(lookup.status).toEqual({ code: 'unset' });
  });

  it('records a stop as baton.termination on the workflow span', async () => {
    const workflow = desk();
    await workflow.session('s2').run('Is INV-1 paid?');
    await otel.clear();
    const result = await workflow.session('s2').run('thanks, bye');
    expect(result.stopReason).toBe("Text 'bye' mentioned");
    const spans = otel.spans();
    expect(outline(spans)).toEqual(['invoke_workflow desk']);
    expect(spans[0]?.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.conversation.id': 's2',
      'baton.workflow.name': 'desk',
      'baton.run.status': 'terminated',
      'baton.stop_reason': "Text 'bye' mentioned",
    });
    expect(spans[0]?.events).toEqual([
      { name: 'baton.termination', attributes: { 'baton.stop_reason': "Text 'bye' mentioned" } },
    ]);
  });

  it("is a child of the caller's active span", async () => {
    const tracer = trace.getTracer('the-app');
    await tracer.startActiveSpan('handle request', async (request) => {
      await desk().session('s3').run('Is INV-1 paid?');
      request.end();
    });
    const spans = otel.spans();
    expect(outline(spans)).toEqual([
      'handle request',
      '  invoke_workflow desk',
      '    invoke_agent triage',
      '      chat triage-model',
      '    invoke_agent billing',
      '      chat',
      '      execute_tool lookup_invoice',
      '      chat',
    ]);
  });

  it('marks a failed tool and a failed model call as ERROR with error.type', async () => {
    await desk({ invoice: 'INV-404' }).session('s4').run('Is INV-404 paid?');
    const failedTool = only(otel.spans(), 'execute_tool lookup_invoice');
    expect(failedTool.attributes['error.type']).toBe('RangeError');
    // The error's text quotes the arguments: content, left out without content capture.
    expect(failedTool.status).toEqual({ code: 'error' });
    await otel.clear();

    const broken = new Agent({
      name: 'triage',
      client: new ScriptedChatClient([new TypeError('connection reset')], { model: 'm1' }),
    });
    const workflow = new HandoffBuilder({ name: 'broken', participants: [broken] })
      .coordinator(broken)
      .build();
    await expect(workflow.run('hello')).rejects.toThrow(
      'Agent "triage" failed in session "default": connection reset',
    );
    const spans = otel.spans();
    expect(outline(spans)).toEqual([
      'invoke_workflow broken',
      '  invoke_agent triage',
      '    chat m1',
    ]);
    expect(spans.map((s) => [s.name, s.attributes['error.type'], s.status])).toEqual([
      ['chat m1', 'TypeError', { code: 'error' }],
      ['invoke_agent triage', 'TypeError', { code: 'error' }],
      ['invoke_workflow broken', 'Error', { code: 'error' }],
    ]);
  });

  it('names unknown tools, bad arguments and timeouts in error.type, without echoing arguments', async () => {
    const slow = tool({
      name: 'slow',
      description: 'Never answers.',
      parameters: z.object({}),
      timeoutMs: 5,
      execute: () => new Promise(() => {}),
    });
    const agent = new Agent({
      name: 'clerk',
      tools: [lookupInvoice, slow],
      timer: (_ms, fire) => {
        queueMicrotask(fire);
        return () => {};
      },
      client: new ScriptedChatClient([
        {
          toolCalls: [
            { id: 'c1', name: 'nope', arguments: '{}' },
            { id: 'c2', name: 'lookup_invoice', arguments: '{"invoiceId": 42}' },
            { id: 'c3', name: 'lookup_invoice', arguments: 'secret-text{' },
            { id: 'c4', name: 'slow', arguments: '{}' },
          ],
        },
      ]),
    });
    const workflow = new HandoffBuilder({ name: 'tools', participants: [agent] })
      .coordinator(agent)
      .build();
    await workflow.run('go');
    const tools = otel.spans().filter((s) => s.name.startsWith('execute_tool'));
    expect(
      tools.map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes['error.type'], s.status]),
    ).toEqual([
      ['c1', 'unknown_tool', { code: 'error' }],
      ['c2', 'invalid_arguments', { code: 'error' }],
      ['c3', 'invalid_arguments', { code: 'error' }],
      ['c4', 'timeout', { code: 'error' }],
    ]);
    expect(JSON.stringify(otel.spans())).not.toContain('secret-text');
  });

  it('records message content only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true', async () => {
    await desk().session('s5').run('Is INV-1 paid?');
    expect(JSON.stringify(otel.spans())).not.toContain('INV-1 is paid');
    expect(JSON.stringify(otel.spans())).not.toContain('gen_ai.input.messages');
    await otel.clear();

    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', 'true');
    await desk().session('s6').run('Is INV-1 paid?');
    const [lookup, answer] = otel.spans().filter((s) => s.name === 'chat');
    expect(JSON.parse(String(answer?.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Is INV-1 paid?' }] },
      {
        role: 'user',
        parts: [
          {
            type: 'text',
            content:
              '[handoff from triage to billing]: ' +
              'Transferred to billing, adopting the role of billing immediately.',
          },
        ],
      },
      {
        role: 'assistant',
        parts: [
          {
            type: 'tool_call',
            id: 'call-1',
            name: 'lookup_invoice',
            arguments: { invoiceId: 'INV-1' },
          },
        ],
      },
      {
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: 'call-1', response: 'INV-1: paid' }],
      },
    ]);
    expect(JSON.parse(String(lookup?.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [
          {
            type: 'tool_call',
            id: 'call-1',
            name: 'lookup_invoice',
            arguments: { invoiceId: 'INV-1' },
          },
        ],
        finish_reason: 'tool_calls',
      },
    ]);
    expect(JSON.parse(String(answer?.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'text', content: 'INV-1 is paid.' }],
        finish_reason: 'stop',
      },
    ]);
  });

  it('records gen_ai.client.token.usage and gen_ai.client.operation.duration per model call', async () => {
    await desk().session('s7').run('Is INV-1 paid?');
    const histograms = await otel.histograms();
    const tokens = histograms['gen_ai.client.token.usage'];
    const duration = histograms['gen_ai.client.operation.duration'];
    expect(tokens?.unit).toBe('{token}');
    expect(duration?.unit).toBe('s');
    const byAttributes = <P extends { attributes: Record<string, unknown> }>(points: P[]) =>
      [...points].sort((a, b) =>
        JSON.stringify(a.attributes).localeCompare(JSON.stringify(b.attributes)),
      );
    const noModel = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'baton.scripted' };
    const triageModel = {
      ...noModel,
      'gen_ai.request.model': 'triage-model',
      'gen_ai.response.model': 'triage-model',
    };
    expect(byAttributes(tokens?.points ?? []).map((p) => [p.attributes, p.count, p.sum])).toEqual([
      [{ ...triageModel, 'gen_ai.token.type': 'input' }, 1, 0],
      [{ ...triageModel, 'gen_ai.token.type': 'output' }, 1, 0],
      [{ ...noModel, 'gen_ai.token.type': 'input' }, 2, 30],
      [{ ...noModel, 'gen_ai.token.type': 'output' }, 2, 6],
    ]);
    expect(byAttributes(duration?.points ?? []).map((p) => [p.attributes, p.count])).toEqual([
      [triageModel, 1],
      [noModel, 2],
    ]);
  });
});
