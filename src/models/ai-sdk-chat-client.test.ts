import {
  APICallError,
  type LanguageModelV4FinishReason,
  type LanguageModelV4StreamPart,
  type LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockLanguageModelV3, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';

import { ConfigError } from '../errors.js';
import { AiSdkChatClient } from './ai-sdk-chat-client.js';
import type { ModelRequest, ModelResult } from './chat-client.js';

const usage = (input: number, output: number): LanguageModelV4Usage => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});
const finish = (unified: LanguageModelV4FinishReason['unified']) => ({
  unified,
  raw: `raw-${unified}`,
});

const request: ModelRequest = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Refund 42' },
    {
      role: 'assistant',
      content: 'Looking.',
      toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{"id":42}' }],
    },
    { role: 'tool', toolCallId: 'c1', content: 'unpaid' },
    { role: 'user', content: 'Well?', name: 'triage' },
  ],
  tools: [
    {
      name: 'lookup',
      description: 'Finds an invoice.',
      parameters: { type: 'object', properties: { id: { type: 'number' } } },
    },
  ],
};

async function collect(stream: AsyncIterable<string | ModelResult>) {
  const chunks: string[] = [];
  let result: ModelResult | undefined;
  for await (const item of stream) {
    if (typeof item === 'string') chunks.push(item);
    else result = item;
  }
  return { chunks, result };
}

function streaming(parts: LanguageModelV4StreamPart[]) {
  return new MockLanguageModelV4({
    provider: 'mock.chat',
    modelId: 'mock-1',
    doStream: { stream: convertArrayToReadableStream(parts) },
  });
}

describe('AiSdkChatClient', () => {
  it('sends the request as AI SDK call options and maps a whole answer', async () => {
    const model = new MockLanguageModelV4({
      provider: 'mock.chat',
      modelId: 'mock-1',
      doGenerate: {
        content: [
          { type: 'reasoning', text: 'Check the invoice.' },
          { type: 'text', text: 'It is ' },
          { type: 'text', text: 'unpaid.' },
          { type: 'tool-call', toolCallId: 't1', toolName: 'refund', input: '{"id":42}' },
          {
            type: 'tool-call',
            toolCallId: 'p1',
            toolName: 'web_search',
            input: '{}',
            providerExecuted: true,
          },
        ],
        finishReason: finish('tool-calls'),
        usage: usage(12, 5),
        warnings: [],
        response: { modelId: 'mock-1-2026' },
      },
    });
    const client = new AiSdkChatClient(model, {
      providerOptions: { mock: { effort: 'low' } },
      temperature: 0.2,
    });

    const result = await client.create({ ...request, outputSchema: { type: 'object' } });

    expect(result).toEqual({
      content: 'It is unpaid.',
      toolCalls: [{ id: 't1', name: 'refund', arguments: '{"id":42}' }],
      usage: { promptTokens: 12, completionTokens: 5 },
      thought: 'Check the invoice.',
      model: 'mock-1-2026',
      finishReason: 'tool_calls',
    });
    expect([client.model, client.provider, client.providerId]).toEqual([
      'mock-1',
      'mock',
      'mock.chat',
    ]);
    expect(model.doGenerateCalls[0]).toEqual({
      prompt: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Refund 42' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Looking.' },
            { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { id: 42 } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'lookup',
              output: { type: 'text', value: 'unpaid' },
            },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: '[triage]: Well?' }] },
      ],
      tools: [
        {
          type: 'function',
          name: 'lookup',
          description: 'Finds an invoice.',
          inputSchema: { type: 'object', properties: { id: { type: 'number' } } },
        },
      ],
      toolChoice: { type: 'auto' },
      responseFormat: { type: 'json', schema: { type: 'object' }, name: 'output' },
      temperature: 0.2,
      providerOptions: { mock: { effort: 'low' } },
    });
  });

  it('streams text chunks and maps every stream part type into one result', async () => {
    const client = new AiSdkChatClient(
      streaming([
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: 'r1', modelId: 'mock-1-2026' },
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-delta', id: 'r', delta: 'Think' },
        { type: 'reasoning-delta', id: 'r', delta: 'ing.' },
        { type: 'reasoning-end', id: 'r' },
        { type: 'text-start', id: 'x' },
        { type: 'text-delta', id: 'x', delta: 'Hel' },
        { type: 'text-delta', id: 'x', delta: '' },
        { type: 'text-delta', id: 'x', delta: 'lo' },
        { type: 'text-end', id: 'x' },
        { type: 'tool-input-start', id: 't1', toolName: 'lookup' },
        { type: 'tool-input-delta', id: 't1', delta: '{"id":' },
        { type: 'tool-input-delta', id: 't1', delta: '42}' },
        { type: 'tool-input-end', id: 't1' },
        { type: 'tool-call', toolCallId: 't1', toolName: 'lookup', input: '{"id":42}' },
        {
          type: 'tool-call',
          toolCallId: 'p1',
          toolName: 'web_search',
          input: '{}',
          providerExecuted: true,
        },
        { type: 'tool-result', toolCallId: 'p1', toolName: 'web_search', result: { hits: 0 } },
        { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'p1' },
        { type: 'source', sourceType: 'url', id: 's1', url: 'https://example.com' },
        { type: 'file', mediaType: 'text/plain', data: { type: 'data', data: 'aGk=' } },
        { type: 'custom', kind: 'mock.note' },
        { type: 'ping' },
        { type: 'raw', rawValue: { anything: true } },
        { type: 'finish', usage: usage(7, 3), finishReason: finish('tool-calls') },
      ]),
    );

    const { chunks, result } = await collect(client.createStream(request));

    expect(chunks).toEqual(['Hel', 'lo']);
    expect(result).toEqual({
      content: 'Hello',
      toolCalls: [{ id: 't1', name: 'lookup', arguments: '{"id":42}' }],
      usage: { promptTokens: 7, completionTokens: 3 },
      thought: 'Thinking.',
      model: 'mock-1-2026',
      finishReason: 'tool_calls',
    });
  });

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['content-filter', 'content_filter'],
    ['tool-calls', 'tool_calls'],
    ['error', 'error'],
    ['interrupted', 'interrupted'],
    ['other', 'other'],
  ] as const)('maps the finish reason %s to %s, streamed or not', async (unified, expected) => {
    const streamed = new AiSdkChatClient(
      streaming([{ type: 'finish', usage: usage(1, 0), finishReason: finish(unified) }]),
    );
    const whole = new AiSdkChatClient(
      new MockLanguageModelV4({
        doGenerate: {
          content: [],
          finishReason: finish(unified),
          usage: usage(1, 0),
          warnings: [],
        },
      }),
    );
    const expectedResult = {
      content: null,
      toolCalls: [],
      usage: { promptTokens: 1, completionTokens: 0 },
      finishReason: expected,
    };
    expect((await collect(streamed.createStream(request))).result).toEqual(expectedResult);
    expect(await whole.create(request)).toEqual(expectedResult);
  });

  it('counts unreported tokens as 0 and gives a call without an id one', async () => {
    const client = new AiSdkChatClient(
      streaming([
        { type: 'tool-call', toolCallId: '', toolName: 'lookup', input: '' },
        {
          type: 'finish',
          usage: {
            inputTokens: { total: undefined, noCache: undefined, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: undefined, text: undefined, reasoning: undefined },
          },
          finishReason: finish('tool-calls'),
        },
      ]),
    );
    const { result } = await collect(client.createStream(request));
    expect(result?.usage).toEqual({ promptTokens: 0, completionTokens: 0 });
    expect(result?.toolCalls).toEqual([{ id: '', name: 'lookup', arguments: '' }]);
  });

  const KEY = 'test-key-Zq81vXr04LmN';
  const apiError = (retryable = false) =>
    new APICallError({
      message: `invalid x-api-key ${KEY}`,
      url: 'https://api.example.com/v1/messages',
      requestBodyValues: { headers: { 'x-api-key': KEY } },
      statusCode: retryable ? 529 : 401,
      responseHeaders: { 'x-echo': KEY },
      responseBody: JSON.stringify({ error: { message: `bad key ${KEY}` } }),
      cause: new Error(`socket for ${KEY}`),
      isRetryable: retryable,
    });
  /** Everything an error carries that a log could show: message, stack, cause, fields. */
  const everything = (error: unknown): string => {
    const e = error as Error & { cause?: Error };
    return [
      e.message,
      e.stack,
      JSON.stringify(e),
      e.cause?.message,
      e.cause?.stack,
      JSON.stringify(e.cause),
      String(e.cause?.cause),
    ].join('\n');
  };

  it('names the provider and model in errors and never shows the key (option or env)', async () => {
    const model = new MockLanguageModelV4({
      provider: 'mock.chat',
      modelId: 'mock-1',
      doGenerate: async () => {
        throw apiError();
      },
      doStream: async () => ({
        stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
          { type: 'text-delta', id: 'x', delta: 'Hi' },
          { type: 'error', error: apiError() },
        ]),
      }),
    });
    const client = new AiSdkChatClient(model, { secrets: [KEY] });
    const expected =
      'Model "mock-1" of provider "mock.chat" at https://api.example.com/v1/messages ' +
      'failed (HTTP 401): invalid x-api-key [redacted]';

    const thrown = await client.create(request).catch((e: unknown) => e);
    expect((thrown as Error).message).toBe(expected);
    expect((thrown as Error & { cause: { status: number; name: string } }).cause).toMatchObject({
      status: 401,
      name: 'AI_APICallError',
      message: 'invalid x-api-key [redacted]',
    });
    expect(everything(thrown)).not.toContain(KEY);

    const streamed = await collect(client.createStream(request)).catch((e: unknown) => e);
    expect((streamed as Error).message).toBe(expected);
    expect(everything(streamed)).not.toContain(KEY);

    process.env.MOCK_PROVIDER_API_KEY = KEY;
    try {
      const fromEnv = await new AiSdkChatClient(model).create(request).catch((e: unknown) => e);
      expect((fromEnv as Error).message).toBe(expected);
      expect(everything(fromEnv)).not.toContain(KEY);
    } finally {
      delete process.env.MOCK_PROVIDER_API_KEY;
    }
  });

  it('retries a call the provider marks retryable, up to maxRetries', async () => {
    let calls = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        calls++;
        if (calls === 1) throw apiError(true);
        return {
          content: [{ type: 'text', text: 'ok' }],
          finishReason: finish('stop'),
          usage: usage(1, 1),
          warnings: [],
        };
      },
    });
    expect((await new AiSdkChatClient(model, { maxRetries: 1 }).create(request)).content).toBe(
      'ok',
    );
    expect(calls).toBe(2);

    calls = 0;
    const none = await new AiSdkChatClient(model, { maxRetries: 0, secrets: [KEY] })
      .create(request)
      .catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect((none as Error).message).toContain('failed (HTTP 529)');
  });

  it('rejects with the abort reason when the signal aborts mid-stream, and cancels the stream', async () => {
    let cancelled = false;
    const controller = new AbortController();
    const model = new MockLanguageModelV4({
      doStream: async () => ({
        // One chunk, then nothing: a provider that does not watch the signal.
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(c) {
            c.enqueue({ type: 'text-delta', id: 'x', delta: 'Hel' });
          },
          cancel() {
            cancelled = true;
          },
        }),
      }),
    });
    const client = new AiSdkChatClient(model);
    const chunks: string[] = [];
    const reason = new Error('user left');
    const run = (async () => {
      for await (const item of client.createStream({ ...request, signal: controller.signal })) {
        if (typeof item === 'string') {
          chunks.push(item);
          controller.abort(reason);
        }
      }
    })();
    await expect(run).rejects.toBe(reason);
    expect(chunks).toEqual(['Hel']);
    expect(cancelled).toBe(true);
    expect(model.doStreamCalls[0]?.abortSignal).toBe(controller.signal);
  });

  it('rejects with the abort reason when aborted before or during a whole call', async () => {
    const controller = new AbortController();
    const model = new MockLanguageModelV4({ doGenerate: () => new Promise(() => {}) });
    const client = new AiSdkChatClient(model);
    const pending = client.create({ ...request, signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    await expect(client.create({ ...request, signal: controller.signal })).rejects.toThrow('stop');
  });

  it('adapts a model of the older v3 specification through the ai package', async () => {
    const model = new MockLanguageModelV3({
      provider: 'old.chat',
      modelId: 'old-1',
      doGenerate: {
        content: [{ type: 'text', text: 'From v3.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: usage(2, 2),
        warnings: [],
      },
    });
    const client = new AiSdkChatClient(model);
    expect(await client.create(request)).toEqual({
      content: 'From v3.',
      toolCalls: [],
      usage: { promptTokens: 2, completionTokens: 2 },
      finishReason: 'stop',
    });
    expect(client.providerId).toBe('old.chat');
  });

  it('refuses what is not a model with a ConfigError', () => {
    expect(() => new AiSdkChatClient({} as never)).toThrow(ConfigError);
    expect(() => new AiSdkChatClient('')).toThrow(
      "AiSdkChatClient needs an AI SDK language model, e.g. anthropic('claude-sonnet-4-5') " +
        'from @ai-sdk/anthropic, or a model id string; got an empty string.',
    );
  });
});
