import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { tool } from '../../src/agents/tool.js';
import { ConfigError } from '../../src/errors.js';
import type { ModelRequest, ModelResult } from '../../src/models/chat-client.js';
import { OpenAIChatClient } from '../../src/models/openai-chat-client.js';
import {
  type OpenAICompatibleServer,
  startOpenAICompatibleServer,
} from '../support/openai-compatible-server.js';

const API_KEY = 'sk-test-not-a-real-key';
let server: OpenAICompatibleServer;

beforeAll(async () => {
  server = await startOpenAICompatibleServer({ apiKey: API_KEY });
});
afterEach(() => {
  const violations = [...server.violations];
  server.reset();
  expect(violations).toEqual([]);
});
afterAll(() => server.close());

const client = (extra: { maxRetries?: number; parallelToolCalls?: boolean } = {}) =>
  new OpenAIChatClient({ model: 'test-model', apiKey: API_KEY, baseURL: server.url, ...extra });
const ask = (content: string): ModelRequest => ({ messages: [{ role: 'user', content }] });
const lookup = tool({
  name: 'lookup_invoice',
  description: 'Finds an invoice.',
  parameters: z.object({ invoiceId: z.string() }),
  execute: () => 'paid',
});

async function collect(stream: AsyncIterable<string | ModelResult>) {
  const seen: (string | ModelResult)[] = [];
  for await (const item of stream) seen.push(item);
  return seen;
}

describe('OpenAIChatClient over HTTP', () => {
  it('sends the messages in wire format and maps the text answer and usage', async () => {
    server.reply({ text: 'Hello!', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const result = await client().create({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', name: 'critic', content: 'Too short' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'c1', content: 'done' },
      ],
    });
    expect(result).toEqual({
      content: 'Hello!',
      toolCalls: [],
      usage: { promptTokens: 12, completionTokens: 3 },
      model: 'test-model',
      finishReason: 'stop',
    });
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(server.requests[0]?.body).toEqual({
      model: 'test-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', name: 'critic', content: 'Too short' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'done' },
      ],
      stream: false,
    });
  });

  it('sends tools with the JSON Schema derived from zod and returns parallel tool calls', async () => {
    server.reply({
      toolCalls: [
        { id: 'call_a', name: 'lookup_invoice', arguments: { invoiceId: '1' } },
        { id: 'call_b', name: 'lookup_invoice', arguments: { invoiceId: '2' } },
      ],
      usage: { prompt_tokens: 40, completion_tokens: 9 },
    });
    const result = await client({ parallelToolCalls: true }).create({
      ...ask('Two invoices'),
      tools: [lookup.schema],
    });
    expect(result).toEqual({
      content: null,
      toolCalls: [
        { id: 'call_a', name: 'lookup_invoice', arguments: '{"invoiceId":"1"}' },
        { id: 'call_b', name: 'lookup_invoice', arguments: '{"invoiceId":"2"}' },
      ],
      usage: { promptTokens: 40, completionTokens: 9 },
      model: 'test-model',
      finishReason: 'tool_calls',
    });
    expect(server.requests[0]?.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'lookup_invoice',
          description: 'Finds an invoice.',
          parameters: {
            type: 'object',
            properties: { invoiceId: { type: 'string' } },
            required: ['invoiceId'],
          },
        },
      },
    ]);
    expect(server.requests[0]?.body.parallel_tool_calls).toBe(true);
  });

  it('streams text chunks, assembles split tool-call deltas and reads the usage chunk', async () => {
    server.reply({
      text: 'Let me check.',
      chunks: ['Let ', 'me ', 'check.'],
      toolCalls: [
        { id: 'call_a', name: 'lookup_invoice', arguments: { invoiceId: 'A-1' } },
        { id: 'call_b', name: 'lookup_invoice', arguments: { invoiceId: 'B-22' } },
      ],
      argumentPieces: 4,
      usage: { prompt_tokens: 21, completion_tokens: 17 },
    });
    const seen = await collect(client().createStream({ ...ask('Check'), tools: [lookup.schema] }));
    expect(seen).toEqual([
      'Let ',
      'me ',
      'check.',
      {
        content: 'Let me check.',
        toolCalls: [
          { id: 'call_a', name: 'lookup_invoice', arguments: '{"invoiceId":"A-1"}' },
          { id: 'call_b', name: 'lookup_invoice', arguments: '{"invoiceId":"B-22"}' },
        ],
        usage: { promptTokens: 21, completionTokens: 17 },
        model: 'test-model',
        finishReason: 'tool_calls',
      },
    ]);
    expect(server.requests[0]?.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('reports reasoning that the server sends separately as the thought', async () => {
    server.reply({ text: '4', reasoning: '2 + 2 = 4' }, { text: '5', reasoning: 'add one' });
    expect(await client().create(ask('2+2?'))).toEqual({
      content: '4',
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0 },
      model: 'test-model',
      finishReason: 'stop',
      thought: '2 + 2 = 4',
    });
    const streamed = await collect(client().createStream(ask('4+1?')));
    expect(streamed.at(-1)).toEqual({
      content: '5',
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0 },
      model: 'test-model',
      finishReason: 'stop',
      thought: 'add one',
    });
  });

  it('asks for structured output with a json_schema response format', async () => {
    server.reply({ text: '{"route":"billing"}' });
    const schema = {
      type: 'object',
      properties: { route: { type: 'string' } },
      required: ['route'],
    };
    const result = await client().create({ ...ask('Route it'), outputSchema: schema });
    expect(result.content).toBe('{"route":"billing"}');
    expect(server.requests[0]?.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema, strict: false },
    });
  });

  it('retries a 429 and a 500 and then succeeds', async () => {
    server.reply(
      { status: 429, message: 'Rate limit reached for requests', code: 'rate_limit_exceeded' },
      { status: 500, message: 'The server had an error while processing your request.' },
      { text: 'finally' },
    );
    expect((await client({ maxRetries: 2 }).create(ask('Hi'))).content).toBe('finally');
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after maxRetries and keeps the provider’s message', async () => {
    server.reply(
      { status: 503, message: 'The engine is currently overloaded.' },
      { status: 503, message: 'The engine is currently overloaded.' },
    );
    await expect(client({ maxRetries: 1 }).create(ask('Hi'))).rejects.toThrow(
      `Model "test-model" at ${server.url} request failed: 503 The engine is currently overloaded.`,
    );
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 400 and keeps its message, also when streaming', async () => {
    const message = "Invalid value for 'temperature': must be at most 2.";
    server.reply({ status: 400, message }, { status: 400, message });
    await expect(client().create(ask('Hi'))).rejects.toThrow(
      `Model "test-model" at ${server.url} request failed: 400 ${message}`,
    );
    await expect(collect(client().createStream(ask('Hi')))).rejects.toThrow(
      `Model "test-model" at ${server.url} request failed: 400 ${message}`,
    );
    expect(server.requests).toHaveLength(2);
  });

  it('aborts a request in flight when the signal fires', async () => {
    server.reply({ hang: true }, { hang: true });
    for (const mode of ['create', 'stream'] as const) {
      const controller = new AbortController();
      const request = { ...ask('Slow'), signal: controller.signal };
      const pending =
        mode === 'create' ? client().create(request) : collect(client().createStream(request));
      await server.received(mode === 'create' ? 1 : 2);
      controller.abort();
      await expect(pending).rejects.toThrow('Request was aborted.');
    }
  });

  it('reads the API key and base URL from the environment by default', async () => {
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
    try {
      process.env.OPENAI_API_KEY = API_KEY;
      process.env.OPENAI_BASE_URL = server.url;
      server.reply({ text: 'from env' });
      expect((await new OpenAIChatClient({ model: 'test-model' }).create(ask('Hi'))).content).toBe(
        'from env',
      );
      expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
      delete process.env.OPENAI_API_KEY;
      expect(() => new OpenAIChatClient({ model: 'test-model' })).toThrow(ConfigError);
      expect(() => new OpenAIChatClient({ model: 'test-model' })).toThrow(
        'OpenAIChatClient needs an API key: pass `apiKey` or set OPENAI_API_KEY. Local servers ' +
          'that ignore keys accept any non-empty value.',
      );
    } finally {
      restore('OPENAI_API_KEY', saved.key);
      restore('OPENAI_BASE_URL', saved.url);
    }
  });

  it('keeps the key out of its own fields and out of error messages', async () => {
    const wrong = 'sk-wrong-key-123';
    const bad = new OpenAIChatClient({ model: 'test-model', apiKey: wrong, baseURL: server.url });
    const error = await bad.create(ask('Hi')).then(
      () => new Error('expected a rejection'),
      (e: unknown) => e as Error,
    );
    expect(error.message).toBe(
      `Model "test-model" at ${server.url} request failed: 401 Incorrect API key provided.`,
    );
    expect(JSON.stringify(bad)).toBe('{"model":"test-model","provider":"openai"}');
    expect(error.message).not.toContain(wrong);
  });

  it('needs a model name', () => {
    expect(() => new OpenAIChatClient({ model: '', apiKey: API_KEY })).toThrow(
      'OpenAIChatClient needs a `model` name, e.g. { model: "gpt-4.1-mini" }.',
    );
  });
});

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
