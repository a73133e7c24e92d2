import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { createTestContext, ManualTimer, shape } from '../../test/support/test-context.js';
import { textMessage } from '../messages/message-factories.js';
import {
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
} from '../models/scripted-chat-client.js';
import { Agent } from './agent.js';
import { tool } from './tool.js';

const usage = (promptTokens: number, completionTokens: number) => ({
  promptTokens,
  completionTokens,
});
const weather = tool({
  name: 'weather',
  description: 'Weather in a city.',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `Sunny in ${city}`,
});
const hi = textMessage({ source: 'user', content: 'Weather in Oslo?' });

describe('Agent', () => {
  it('answers text with a TextMessage carrying the usage', async () => {
    const client = new ScriptedChatClient([scriptedText('Hello!', usage(10, 2))]);
    const agent = new Agent({ name: 'helper', instructions: 'Be kind.', client });
    const { ctx } = createTestContext({ conversation: [hi], newMessages: [hi] });
    const response = await agent.respond(ctx);
    expect(shape(response.chatMessage)).toEqual({
      type: 'TextMessage',
      source: 'helper',
      content: 'Hello!',
      usage: usage(10, 2),
      metadata: {},
    });
    expect(response.innerMessages).toEqual([]);
    expect(client.calls).toEqual([
      {
        messages: [
          { role: 'system', content: 'Be kind.' },
          { role: 'user', content: 'Weather in Oslo?' },
        ],
      },
    ]);
  });

  it('runs the tools, records both events and sums the last iteration up', async () => {
    const client = new ScriptedChatClient([
      {
        toolCalls: [{ id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }],
        usage: usage(20, 5),
      },
    ]);
    const agent = new Agent({ name: 'helper', client, tools: [weather] });
    const { ctx, emitted } = createTestContext({ conversation: [hi] });
    const response = await agent.respond(ctx);
    const call = { id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' };
    const result = { callId: 'c1', name: 'weather', content: 'Sunny in Oslo', isError: false };
    expect(response.innerMessages?.map(shape)).toEqual([
      {
        type: 'ToolCallRequestEvent',
        source: 'helper',
        content: [call],
        usage: usage(20, 5),
        metadata: {},
      },
      { type: 'ToolCallExecutionEvent', source: 'helper', content: [result], metadata: {} },
    ]);
    expect(emitted).toEqual(response.innerMessages);
    expect(shape(response.chatMessage)).toEqual({
      type: 'ToolCallSummaryMessage',
      source: 'helper',
      content: 'Sunny in Oslo',
      toolCalls: [call],
      results: [result],
      metadata: {},
    });
    expect(client.calls[0]?.tools).toEqual([weather.schema]);
  });

  it('calls the model again with the results while iterations are left', async () => {
    const client = new ScriptedChatClient([
      scriptedToolCall('weather', { city: 'Oslo' }, 'c1'),
      scriptedText('It is sunny.', usage(30, 4)),
    ]);
    const agent = new Agent({ name: 'helper', client, tools: [weather], maxToolIterations: 3 });
    const response = await agent.respond(createTestContext({ conversation: [hi] }).ctx);
    expect(shape(response.chatMessage)).toMatchObject({
      type: 'TextMessage',
      content: 'It is sunny.',
    });
    expect(response.innerMessages?.map((m) => m.type)).toEqual([
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
    ]);
    expect(client.calls[1]?.messages).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }],
      },
      { role: 'tool', toolCallId: 'c1', content: 'Sunny in Oslo' },
    ]);
  });

  it('sums up only the last iteration when the iterations run out', async () => {
    const client = new ScriptedChatClient([
      scriptedToolCall('weather', { city: 'Oslo' }, 'c1'),
      scriptedToolCall('weather', { city: 'Rome' }, 'c2'),
    ]);
    const agent = new Agent({ name: 'helper', client, tools: [weather], maxToolIterations: 2 });
    const response = await agent.respond(createTestContext({ conversation: [hi] }).ctx);
    expect(shape(response.chatMessage)).toMatchObject({
      type: 'ToolCallSummaryMessage',
      content: 'Sunny in Rome',
      toolCalls: [{ id: 'c2', name: 'weather', arguments: '{"city":"Rome"}' }],
    });
    expect(response.innerMessages).toHaveLength(4);
  });

  it('feeds bad tool input back to the model as error results instead of failing', async () => {
    const client = new ScriptedChatClient([
      {
        toolCalls: [
          { id: 'a', name: 'nope', arguments: '{}' },
          { id: 'b', name: 'weather', arguments: '{"city":' },
          { id: 'c', name: 'weather', arguments: '{"town":"Oslo"}' },
        ],
      },
      scriptedText('Sorry.'),
    ]);
    const agent = new Agent({ name: 'helper', client, tools: [weather], maxToolIterations: 2 });
    const response = await agent.respond(createTestContext({ conversation: [hi] }).ctx);
    expect(response.innerMessages?.[1]).toMatchObject({
      content: [
        {
          callId: 'a',
          name: 'nope',
          isError: true,
          content: 'Unknown tool "nope". Available tools: weather.',
        },
        {
          callId: 'b',
          isError: true,
          content:
            'Tool "weather" received arguments that are not valid JSON: {"city":. Send the ' +
            'arguments as one JSON object.',
        },
        {
          callId: 'c',
          isError: true,
          content:
            'Tool "weather" received invalid arguments: city: Invalid input: expected string, ' +
            'received undefined. Fix them and call the tool again.',
        },
      ],
    });
    expect(client.calls[1]?.messages.filter((m) => m.role === 'tool')).toHaveLength(3);
    expect(shape(response.chatMessage)).toMatchObject({ content: 'Sorry.' });
  });

  it('turns a tool that never answers into a timeout result', async () => {
    const timer = new ManualTimer();
    const stuck = tool({
      name: 'stuck',
      parameters: z.object({}),
      timeoutMs: 50,
      execute: () => new Promise(() => {}),
    });
    const client = new ScriptedChatClient([scriptedToolCall('stuck', {}, 'c1')]);
    const agent = new Agent({ name: 'helper', client, tools: [stuck], timer: timer.timer });
    const pending = agent.respond(createTestContext().ctx);
    while (timer.pending.length === 0) await new Promise((r) => setImmediate(r));
    timer.fireAll();
    expect(shape((await pending).chatMessage)).toMatchObject({
      results: [
        {
          callId: 'c1',
          name: 'stuck',
          content: 'Tool "stuck" timed out after 50 ms.',
          isError: true,
        },
      ],
    });
  });

  it('reports thoughts and text said alongside tool calls as ThoughtEvents', async () => {
    const client = new ScriptedChatClient([
      {
        ...scriptedToolCall('weather', { city: 'Oslo' }, 'c1'),
        content: 'Checking.',
        thought: 'use the tool',
      },
    ]);
    const agent = new Agent({ name: 'helper', client, tools: [weather] });
    const response = await agent.respond(createTestContext().ctx);
    expect(response.innerMessages?.slice(0, 2).map(shape)).toEqual([
      { type: 'ThoughtEvent', source: 'helper', content: 'use the tool', metadata: {} },
      { type: 'ThoughtEvent', source: 'helper', content: 'Checking.', metadata: {} },
    ]);
  });

  it('streams chunks through emit when asked to, and not by default', async () => {
    const steps = () => [
      { ...scriptedToolCall('weather', { city: 'Oslo' }, 'c1') },
      { chunks: ['Sun', 'ny'], usage: usage(5, 2) },
    ];
    const agent = (stream?: boolean) =>
      new Agent({
        name: 'helper',
        client: new ScriptedChatClient(steps()),
        tools: [weather],
        maxToolIterations: 2,
        ...(stream === undefined ? {} : { stream }),
      });
    const streamed = createTestContext();
    const response = await agent(true).respond(streamed.ctx);
    expect(streamed.emitted.map((e) => `${e.type}:${JSON.stringify(e.content)}`)).toEqual([
      'ToolCallRequestEvent:[{"id":"c1","name":"weather","arguments":"{\\"city\\":\\"Oslo\\"}"}]',
      'ToolCallExecutionEvent:[{"callId":"c1","name":"weather","content":"Sunny in Oslo","isError":false}]',
      'ModelClientStreamingChunkEvent:"Sun"',
      'ModelClientStreamingChunkEvent:"ny"',
    ]);
    expect(shape(response.chatMessage)).toMatchObject({ content: 'Sunny', usage: usage(5, 2) });
    expect(response.innerMessages?.map((m) => m.type)).toEqual([
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
    ]);
    const quiet = createTestContext();
    await agent().respond(quiet.ctx);
    expect(quiet.emitted.map((e) => e.type)).toEqual([
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
    ]);
  });

  it('answers with a StructuredMessage when an output schema is set', async () => {
    const outputSchema = z.object({ route: z.enum(['billing', 'tech']) });
    const client = new ScriptedChatClient([scriptedText('{"route":"tech"}', usage(8, 3))]);
    const agent = new Agent({ name: 'router', client, outputSchema });
    const response = await agent.respond(createTestContext({ conversation: [hi] }).ctx);
    expect(shape(response.chatMessage)).toEqual({
      type: 'StructuredMessage',
      source: 'router',
      content: { route: 'tech' },
      usage: usage(8, 3),
      metadata: {},
    });
    expect(client.calls[0]?.outputSchema).toEqual({
      type: 'object',
      properties: { route: { type: 'string', enum: ['billing', 'tech'] } },
      required: ['route'],
      additionalProperties: false,
    });
  });

  it('keeps an answer that does not match the output schema as text, saying why', async () => {
    const outputSchema = z.object({ route: z.string() });
    const client = new ScriptedChatClient([scriptedText('not json'), scriptedText('{"way":1}')]);
    const agent = new Agent({ name: 'router', client, outputSchema });
    const first = await agent.respond(createTestContext().ctx);
    expect(shape(first.chatMessage)).toMatchObject({
      type: 'TextMessage',
      content: 'not json',
      metadata: { structuredOutputError: 'The answer is not valid JSON.' },
    });
    const second = await agent.respond(createTestContext().ctx);
    expect(shape(second.chatMessage)).toMatchObject({
      type: 'TextMessage',
      content: '{"way":1}',
      metadata: {
        structuredOutputError:
          'The answer does not match the output schema: route: Invalid input: expected string, ' +
          'received undefined.',
      },
    });
  });
});
