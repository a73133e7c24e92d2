import { describe, expect, it } from 'vitest';

import type { ModelRequest, ModelResult } from './chat-client.js';
import { ScriptedChatClient, scriptedText, scriptedToolCall } from './scripted-chat-client.js';

const ask = (content: string): ModelRequest => ({ messages: [{ role: 'user', content }] });

async function collect(stream: AsyncIterable<string | ModelResult>) {
  const seen: (string | ModelResult)[] = [];
  for await (const item of stream) seen.push(item);
  return seen;
}

describe('ScriptedChatClient', () => {
  it('answers with the steps in order, filling defaults', async () => {
    const client = new ScriptedChatClient([
      scriptedText('Hello', { promptTokens: 3, completionTokens: 1 }),
      scriptedToolCall('lookup', { id: 42 }, 'call_1'),
      { thought: 'thinking', chunks: ['a', 'b'] },
    ]);
    expect(await client.create(ask('hi'))).toEqual({
      content: 'Hello',
      toolCalls: [],
      usage: { promptTokens: 3, completionTokens: 1 },
    });
    expect(await client.create(ask('next'))).toEqual({
      content: null,
      toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"id":42}' }],
      usage: { promptTokens: 0, completionTokens: 0 },
    });
    expect(await client.create(ask('last'))).toEqual({
      content: 'ab',
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0 },
      thought: 'thinking',
    });
  });

  it('gives every scripted tool call a fresh id unless one is given', () => {
    const first = scriptedToolCall('f', '{"raw":true}');
    const second = scriptedToolCall('f');
    if (first instanceof Error || second instanceof Error) throw new Error('not a step');
    expect(first.toolCalls?.[0]?.arguments).toBe('{"raw":true}');
    expect(second.toolCalls?.[0]?.arguments).toBe('{}');
    expect(first.toolCalls?.[0]?.id).toMatch(/^call_[0-9a-f-]{36}$/);
    expect(first.toolCalls?.[0]?.id).not.toBe(second.toolCalls?.[0]?.id);
  });

  it('says which call had no step and how many were scripted', async () => {
    const client = new ScriptedChatClient([scriptedText('1'), scriptedText('2')]);
    await client.create(ask('a'));
    await client.create(ask('b'));
    await expect(client.create(ask('c'))).rejects.toThrow(
      'ScriptedChatClient has no step for call #3 (2 were scripted)',
    );
    expect(client.calls).toHaveLength(3);
  });

  it('records deep copies of the requests, without the signal', async () => {
    const client = new ScriptedChatClient([scriptedText('ok')]);
    const request: ModelRequest = {
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'f', description: 'F', parameters: { type: 'object' } }],
      signal: new AbortController().signal,
    };
    await client.create(request);
    request.messages.push({ role: 'user', content: 'changed later' });
    expect(client.calls).toEqual([
      {
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'f', description: 'F', parameters: { type: 'object' } }],
      },
    ]);
  });

  it('rejects with an Error step, and asks a step function for each call', async () => {
    const boom = new Error('provider down');
    const client = new ScriptedChatClient((request, callIndex) =>
      callIndex === 0 ? boom : scriptedText(`#${callIndex}: ${request.messages.length}`),
    );
    await expect(client.create(ask('a'))).rejects.toBe(boom);
    expect(await client.create(ask('b'))).toMatchObject({ content: '#1: 1' });
  });

  it('says so when a step function returns nothing', async () => {
    const client = new ScriptedChatClient(
      () => undefined as unknown as ReturnType<typeof scriptedText>,
    );
    await expect(client.create(ask('a'))).rejects.toThrow(
      "ScriptedChatClient's step function returned nothing for call #1. Return a step (or an " +
        'Error) for every call.',
    );
  });

  it('streams the chunks of a step, then the result', async () => {
    const client = new ScriptedChatClient([
      { chunks: ['Hel', 'lo'], usage: { promptTokens: 2, completionTokens: 2 } },
      scriptedText('whole'),
      scriptedToolCall('f', {}, 'c1'),
    ]);
    const result = { toolCalls: [], usage: { promptTokens: 2, completionTokens: 2 } };
    expect(await collect(client.createStream(ask('a')))).toEqual([
      'Hel',
      'lo',
      { content: 'Hello', ...result },
    ]);
    expect(await collect(client.createStream(ask('b')))).toEqual([
      'whole',
      { content: 'whole', toolCalls: [], usage: { promptTokens: 0, completionTokens: 0 } },
    ]);
    expect(await collect(client.createStream(ask('c')))).toEqual([
      {
        content: null,
        toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }],
        usage: { promptTokens: 0, completionTokens: 0 },
      },
    ]);
  });

  it('rejects with the abort reason, also while a step is pending', async () => {
    const pending = new ScriptedChatClient(() => new Promise(() => {}));
    const controller = new AbortController();
    const call = pending.create({ ...ask('a'), signal: controller.signal });
    controller.abort(new Error('user cancelled'));
    await expect(call).rejects.toThrow('user cancelled');

    const already = new ScriptedChatClient([scriptedText('never')]);
    const aborted = AbortSignal.abort(new Error('too late'));
    await expect(already.create({ ...ask('b'), signal: aborted })).rejects.toThrow('too late');
  });

  it('rejects with the reason when its step function aborts the signal and never answers', async () => {
    const controller = new AbortController();
    const client = new ScriptedChatClient(() => {
      controller.abort(new Error('stopped by the step'));
      return new Promise<never>(() => {});
    });
    await expect(client.create({ messages: [], signal: controller.signal })).rejects.toThrow(
      'stopped by the step',
    );
  });
});
