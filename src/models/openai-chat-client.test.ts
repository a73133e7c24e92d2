import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';

import { OpenAIChatClient } from './openai-chat-client.js';

/** An SDK client whose transport answers with `message` (as an odd OpenAI-compatible server may). */
function sdkAnswering(message: Record<string, unknown>): OpenAI {
  const body = {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'odd-model',
    choices: [
      { index: 0, message: { role: 'assistant', ...message }, finish_reason: 'tool_calls' },
    ],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  };
  return new OpenAI({
    apiKey: 'sk-test',
    baseURL: 'http://odd.invalid/v1',
    maxRetries: 0,
    fetch: async () =>
      new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }),
  });
}

/** An SDK client whose transport streams `chunks` as server-sent events. */
function sdkStreaming(deltas: Record<string, unknown>[]): OpenAI {
  const events = deltas.map((delta) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'odd-model',
    choices: [{ index: 0, delta, finish_reason: null }],
  }));
  const text = `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
  return new OpenAI({
    apiKey: 'sk-test',
    baseURL: 'http://odd.invalid/v1',
    maxRetries: 0,
    fetch: async () => new Response(text, { headers: { 'content-type': 'text/event-stream' } }),
  });
}

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('OpenAIChatClient with odd OpenAI-compatible servers', () => {
  it('turns arguments sent as a JSON object or null into JSON text', async () => {
    const client = new OpenAIChatClient({
      model: 'odd-model',
      client: sdkAnswering({
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'lookup', arguments: { id: '7' } } },
          { id: 'b', type: 'function', function: { name: 'lookup', arguments: null } },
        ],
      }),
    });
    expect(await client.create(ask)).toEqual({
      content: null,
      toolCalls: [
        { id: 'a', name: 'lookup', arguments: '{"id":"7"}' },
        { id: 'b', name: 'lookup', arguments: '{}' },
      ],
      usage: { promptTokens: 3, completionTokens: 2 },
      model: 'odd-model',
      finishReason: 'tool_calls',
    });
  });

  it('gives a tool call that came without an id a generated one', async () => {
    const client = new OpenAIChatClient({
      model: 'odd-model',
      client: sdkAnswering({
        content: null,
        tool_calls: [{ type: 'function', function: { name: 'lookup', arguments: '{}' } }],
      }),
    });
    const [call] = (await client.create(ask)).toolCalls;
    expect(call?.id).toMatch(/^call_[0-9a-f-]{36}$/);
    expect(call?.name).toBe('lookup');
  });

  it('does the same for streamed tool calls without an id', async () => {
    const client = new OpenAIChatClient({
      model: 'odd-model',
      client: sdkStreaming([
        { role: 'assistant', content: '' },
        {
          tool_calls: [{ index: 0, type: 'function', function: { name: 'lookup', arguments: '' } }],
        },
      ]),
    });
    const items: unknown[] = [];
    for await (const item of client.createStream(ask)) items.push(item);
    const result = items.at(-1) as { toolCalls: { id: string; arguments: string }[] };
    expect(result.toolCalls[0]?.id).toMatch(/^call_[0-9a-f-]{36}$/);
    expect(result.toolCalls[0]?.arguments).toBe('');
  });
});
