// AiSdkChatClient over real HTTP (API.md §20): a handoff desk with tools and an approval runs
// through @ai-sdk/anthropic against a local Anthropic Messages API that checks what it receives,
// and through @ai-sdk/openai-compatible against the strict local OpenAI-compatible server. A 401
// whose body repeats the key shows it nowhere: not in errors, spans or the thread.

import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  AiSdkChatClient,
  type AgentMessage,
  approve,
  type ChatClient,
  HandoffBuilder,
  MemoryCheckpointStore,
  messageToText,
  tool,
} from '../../src/index.js';
import {
  type AnthropicMessagesServer,
  startAnthropicMessagesServer,
} from '../support/anthropic-messages-server.js';
import {
  type OpenAICompatibleServer,
  startOpenAICompatibleServer,
} from '../support/openai-compatible-server.js';
import { installTestTelemetry, type TestTelemetry } from '../support/otel-sdk.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { runDemo } from '../../src/cli/demo.js';
import { modelFromEnvironment } from '../../src/index.js';

const KEY = 'ant-test-Q7w9Rk2LmZ4xVb';
let anthropicServer: AnthropicMessagesServer;
let openaiServer: OpenAICompatibleServer;
let otel: TestTelemetry;
beforeAll(async () => {
  otel = installTestTelemetry();
  anthropicServer = await startAnthropicMessagesServer({ apiKey: KEY });
  openaiServer = await startOpenAICompatibleServer({ apiKey: 'sk-aisdk-desk' });
});
afterAll(async () => {
  await otel.shutdown();
  await anthropicServer.close();
  await openaiServer.close();
});

const lines = (messages: readonly AgentMessage[]) =>
  messages.map((m) => `${m.type}(${m.source}): ${messageToText(m)}`);

/** triage (streaming) looks an invoice up and hands off; billing's refund needs approval. */
function desk(client: () => ChatClient) {
  const runs: string[] = [];
  const lookup = tool({
    name: 'lookup_invoice',
    description: 'Finds an invoice by id.',
    parameters: z.object({ invoiceId: z.string() }),
    execute: ({ invoiceId }) => `Invoice ${invoiceId}: 80 EUR, paid twice`,
  });
  const refund = tool({
    name: 'refund',
    description: 'Refunds an invoice.',
    parameters: z.object({ invoiceId: z.string() }),
    needsApproval: true,
    execute: ({ invoiceId }) => {
      runs.push(invoiceId);
      return `Refunded ${invoiceId}.`;
    },
  });
  const triage = new Agent({
    name: 'triage',
    instructions: 'Route the customer.',
    client: client(),
    tools: [lookup],
    handoffs: ['billing'],
    stream: true,
    maxToolIterations: 3,
  });
  const billing = new Agent({
    name: 'billing',
    instructions: 'You refund invoices.',
    client: client(),
    tools: [refund, lookup],
    maxToolIterations: 3,
  });
  const workflow = new HandoffBuilder({ name: 'ai-sdk-desk', participants: [triage, billing] })
    .coordinator(triage)
    .withCheckpointing(new MemoryCheckpointStore())
    .build();
  return { workflow, runs };
}

const expectedThread = [
  'TextMessage(user): Invoice 9 was charged twice',
  'ToolCallRequestEvent(triage): lookup_invoice({"invoiceId":"9"})',
  'ToolCallExecutionEvent(triage): lookup_invoice: Invoice 9: 80 EUR, paid twice',
  'ToolCallRequestEvent(triage): handoff_to_billing({})',
  'ToolCallExecutionEvent(triage): handoff_to_billing: Transferred to billing, adopting the role of billing immediately.',
  'HandoffMessage(triage): Transferred to billing, adopting the role of billing immediately.',
  'ToolCallRequestEvent(billing): refund({"invoiceId":"9"})',
  'ToolApprovalRequestEvent(billing): Approval needed: refund({"invoiceId":"9"})',
];

/** Runs the desk through a pause, an approval and a second user turn. */
async function runDesk(client: () => ChatClient) {
  const { workflow, runs } = desk(client);
  const session = workflow.session('ai-sdk-desk-1');
  const first = await session.run('Invoice 9 was charged twice');
  expect(lines(first.messages).filter((l) => !l.startsWith('ModelClientStreaming'))).toEqual(
    expectedThread,
  );
  const second = await session.run(approve('call_r1'));
  expect(runs).toEqual(['9']);
  expect(lines(second.messages).slice(-3)).toEqual([
    'ToolCallExecutionEvent(billing): refund: Refunded 9.',
    'TextMessage(billing): Refunded invoice 9.',
    'UserInputRequestedEvent(billing): Refunded invoice 9.',
  ]);
  const third = await session.run('Thanks!');
  // The reply goes to the coordinator, whose view now holds billing's calls and answer as text.
  expect(lines(third.messages).slice(-2)).toEqual([
    'TextMessage(triage): Glad to help.',
    'UserInputRequestedEvent(triage): Glad to help.',
  ]);
}

describe('AiSdkChatClient over HTTP', () => {
  it('runs a handoff desk with tools and an approval through @ai-sdk/anthropic with no wire error', async () => {
    const anthropic = createAnthropic({ apiKey: KEY, baseURL: anthropicServer.url });
    anthropicServer.reply(
      { toolCalls: [{ id: 'call_l1', name: 'lookup_invoice', input: { invoiceId: '9' } }] },
      { toolCalls: [{ id: 'call_h1', name: 'handoff_to_billing', input: {} }] },
      { toolCalls: [{ id: 'call_r1', name: 'refund', input: { invoiceId: '9' } }] },
      { text: 'Refunded invoice 9.', usage: { input_tokens: 90, output_tokens: 6 } },
      { text: 'Glad to help.' },
    );

    await runDesk(() => new AiSdkChatClient(anthropic('claude-test-model')));

    expect(anthropicServer.violations).toEqual([]);
    expect(anthropicServer.requests).toHaveLength(5);
    expect(anthropicServer.requests.map((r) => r.body.stream === true)).toEqual([
      true,
      true,
      false,
      false,
      true,
    ]);
    // billing's first request: triage's lookup and the handoff as user text that names triage.
    const billingFirst = anthropicServer.requests[2]?.body;
    expect(billingFirst?.system).toEqual([{ type: 'text', text: 'You refund invoices.' }]);
    expect(billingFirst?.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Invoice 9 was charged twice' },
          {
            type: 'text',
            text: '[triage] called lookup_invoice({"invoiceId":"9"}) -> Invoice 9: 80 EUR, paid twice',
          },
          {
            type: 'text',
            text:
              '[handoff from triage to billing]: ' +
              'Transferred to billing, adopting the role of billing immediately.',
          },
        ],
      },
    ]);
  });

  it('runs the same desk through @ai-sdk/openai-compatible against the strict server', async () => {
    openaiServer.reset();
    const local = createOpenAICompatible({
      name: 'local',
      baseURL: openaiServer.url,
      apiKey: 'sk-aisdk-desk',
    });
    openaiServer.reply(
      { toolCalls: [{ id: 'call_l1', name: 'lookup_invoice', arguments: { invoiceId: '9' } }] },
      { toolCalls: [{ id: 'call_h1', name: 'handoff_to_billing', arguments: {} }] },
      { toolCalls: [{ id: 'call_r1', name: 'refund', arguments: { invoiceId: '9' } }] },
      { text: 'Refunded invoice 9.' },
      { text: 'Glad to help.' },
    );

    await runDesk(() => new AiSdkChatClient(local.chatModel('desk-model')));

    openaiServer.assertNoViolations();
    expect(openaiServer.requests).toHaveLength(5);
  });

  it('never shows the key of a 401 whose body repeats it: not in errors, spans or the thread', async () => {
    // The provider reads its key from the environment, as usual; the server wants another one and
    // answers `invalid x-api-key: <the key it was sent>`. The key has no well-known shape.
    const sent = 'ant-env-Wq3Lz8PkR2dV7';
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = sent;
    await otel.clear();
    try {
      const anthropic = createAnthropic({ baseURL: anthropicServer.url });
      const agent = new Agent({
        name: 'clerk',
        client: new AiSdkChatClient(anthropic('claude-test-model'), { maxRetries: 0 }),
      });
      const workflow = new HandoffBuilder({ name: 'ai-sdk-401', participants: [agent] })
        .coordinator(agent)
        .withCheckpointing(new MemoryCheckpointStore())
        .build();
      const session = workflow.session('ai-sdk-401-1');
      const error = (await session.run('hello').catch((e: unknown) => e)) as Error & {
        cause?: Error & { cause?: Error & { cause?: unknown } };
      };
      expect(error.message).toContain(
        `Model "claude-test-model" of provider "anthropic.messages" at ${anthropicServer.url}` +
          '/messages failed (HTTP 401): invalid x-api-key: [redacted]',
      );
      const seen = [
        error.message,
        error.stack,
        JSON.stringify(error),
        error.cause?.message,
        error.cause?.stack,
        error.cause?.cause?.message,
        error.cause?.cause?.stack,
        String(error.cause?.cause?.cause),
        JSON.stringify(otel.spans()),
        JSON.stringify(await session.messages()),
      ].join('\n');
      expect(seen).toContain('invalid x-api-key: [redacted]');
      expect(seen).not.toContain(sent);
      expect(otel.spans().some((s) => s.status.code === 'error')).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it('runs the demo on Claude when ANTHROPIC_API_KEY is set, and says so on screen', async () => {
    const env = { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: anthropicServer.url };
    const banner =
      `Using model "claude-haiku-4-5" at ${anthropicServer.url} through @ai-sdk/anthropic ` +
      '(set BATON_MODEL to change it).';
    expect(await modelFromEnvironment(env)).toMatchObject({ description: banner });
    expect(
      await modelFromEnvironment({ ...env, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }),
    ).toMatchObject({
      description:
        'Using model "gpt-4.1-mini" at http://127.0.0.1:9/v1 (set BATON_MODEL to change it).',
    });
    expect(await modelFromEnvironment({})).toEqual({ client: undefined });

    const before = anthropicServer.requests.length;
    anthropicServer.reply({ text: 'Hello, this is the desk. What can I do?' });
    const written: string[] = [];
    const queue = ['Hello'];
    const code = await runDemo(
      {
        color: false,
        echoInput: true,
        write: (text) => written.push(text),
        onInterrupt: () => {},
        ask: async () => queue.shift() ?? null,
      },
      { env, storeDirectory: mkdtempSync(join(tmpdir(), 'baton-aisdk-demo-')) },
    );
    const out = written.join('');
    expect(code).toBe(0);
    expect(out).toContain(`Baton support-desk demo\n${banner}\n`);
    expect(out).toContain('Hello, this is the desk. What can I do?');
    expect(anthropicServer.requests.length - before).toBe(1);
    expect(anthropicServer.requests.at(-1)?.body.model).toBe('claude-haiku-4-5');
    expect(anthropicServer.violations).toEqual([]);
  });

  it('baton run says which model the environment names', () => {
    const root = resolve(import.meta.dirname, '../..');
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        join(root, 'node_modules/tsx/dist/esm/index.mjs'),
        join(root, 'src/cli/main.ts'),
        'run',
        'samples/support-desk.ts',
      ],
      {
        cwd: root,
        input: '',
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? '',
          ANTHROPIC_API_KEY: KEY,
          ANTHROPIC_BASE_URL: anthropicServer.url,
          BATON_MODEL: 'claude-test-model',
        },
      },
    );
    expect(run.stderr).toBe('');
    expect(run.stdout.split('\n').slice(0, 2)).toEqual([
      'Baton: support-desk from samples/support-desk.ts',
      `Model from the environment: Using model "claude-test-model" at ${anthropicServer.url} ` +
        'through @ai-sdk/anthropic (set BATON_MODEL to change it).',
    ]);
    expect(run.stdout).not.toContain(KEY);
  });
});
