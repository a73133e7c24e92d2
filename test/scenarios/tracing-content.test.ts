import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  guardrail,
  HandoffBuilder,
  ScriptedChatClient,
  scriptedText,
  tool,
} from '../../src/index.js';
import { installTestTelemetry, type TestTelemetry } from '../support/otel-sdk.js';

// API.md §11: without OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true no span holds
// anything the model or the user wrote. Every such string below carries the word SECRET.

let otel: TestTelemetry;
beforeAll(() => {
  otel = installTestTelemetry();
});
afterEach(async () => {
  await otel.clear();
  vi.unstubAllEnvs();
});
afterAll(() => otel.shutdown());

const lookup = tool({
  name: 'lookup_invoice',
  description: 'Looks an invoice up.',
  parameters: z.object({ invoiceId: z.string() }),
  execute: ({ invoiceId }) => {
    throw new RangeError(`No invoice ${invoiceId}.`);
  },
});

/** One agent whose model calls a tool that fails, a tool that does not exist, then answers. */
function clerk(answer: Error | string) {
  const agent = new Agent({
    name: 'clerk',
    tools: [lookup],
    maxToolIterations: 2,
    client: new ScriptedChatClient([
      {
        toolCalls: [
          { id: 'c1', name: 'lookup_invoice', arguments: '{"invoiceId":"SECRET-1"}' },
          { id: 'c2', name: 'SECRET_tool', arguments: '{}' },
        ],
      },
      typeof answer === 'string' ? scriptedText(answer) : answer,
    ]),
  });
  const noCards = guardrail({
    name: 'no_cards',
    check: ({ text }) =>
      text.includes('4111') ? { tripwire: true, info: `card in "${text}"` } : { tripwire: false },
  });
  return new HandoffBuilder({ name: 'desk', participants: [agent] })
    .coordinator(agent)
    .withGuardrails({ output: [noCards] })
    .build();
}

const spanText = () => JSON.stringify(otel.spans());

describe('spans without content capture', () => {
  it('hold no tool error text, unknown tool name, model error text or guardrail info', async () => {
    await clerk('Your card SECRET 4111 is on file.').session('t1').run('SECRET question');
    await expect(
      clerk(new TypeError('SECRET echoed by the provider')).session('t2').run('hi'),
    ).rejects.toThrow('SECRET echoed by the provider');
    expect(spanText()).not.toContain('SECRET');

    const spans = otel.spans();
    // The calls of a response run together: compare them in call order.
    const tools = spans
      .filter((s) => s.name.startsWith('execute_tool'))
      .sort((a, b) =>
        String(a.attributes['gen_ai.tool.call.id']).localeCompare(
          String(b.attributes['gen_ai.tool.call.id']),
        ),
      );
    expect(
      tools.map((s) => [
        s.name,
        s.attributes['gen_ai.tool.name'],
        s.attributes['error.type'],
        s.status,
      ]),
    ).toEqual([
      ['execute_tool lookup_invoice', 'lookup_invoice', 'RangeError', { code: 'error' }],
      ['execute_tool lookup_invoice', 'lookup_invoice', 'RangeError', { code: 'error' }],
      ['execute_tool', undefined, 'unknown_tool', { code: 'error' }],
      ['execute_tool', undefined, 'unknown_tool', { code: 'error' }],
    ]);
    const tripped = spans.find(
      (s) => s.attributes['gen_ai.conversation.id'] === 't1' && s.name === 'invoke_workflow desk',
    );
    expect(tripped?.attributes['baton.stop_reason']).toBe('Guardrail "no_cards" tripped');
    expect(tripped?.events).toEqual([
      {
        name: 'baton.termination',
        attributes: { 'baton.stop_reason': 'Guardrail "no_cards" tripped' },
      },
    ]);
    expect(
      spans
        .filter((s) => s.status.code === 'error' && !s.name.startsWith('execute_tool'))
        .map((s) => [s.name, s.status]),
    ).toEqual([
      ['chat', { code: 'error' }],
      ['invoke_agent clerk', { code: 'error' }],
      ['invoke_workflow desk', { code: 'error' }],
    ]);
  });

  it('hold them all with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true', async () => {
    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', 'true');
    await clerk('Your card 4111 is on file.').session('t3').run('question');
    const spans = otel.spans();
    expect(
      spans
        .filter((s) => s.name.startsWith('execute_tool'))
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((s) => [s.name, s.attributes['gen_ai.tool.name'], s.status.message]),
    ).toEqual([
      [
        'execute_tool lookup_invoice',
        'lookup_invoice',
        'Tool "lookup_invoice" failed: No invoice SECRET-1.',
      ],
      [
        'execute_tool SECRET_tool',
        'SECRET_tool',
        'Unknown tool "SECRET_tool". Available tools: lookup_invoice.',
      ],
    ]);
    const run = spans.find((s) => s.name === 'invoke_workflow desk');
    expect(run?.attributes['baton.stop_reason']).toBe(
      'Guardrail "no_cards" tripped: card in "Your card 4111 is on file."',
    );
  });
});
