import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { createTestContext, ManualTimer, shape } from '../../test/support/test-context.js';
import type { FunctionExecutionResult } from '../messages/message.js';
import { toolCallExecutionEvent, toolCallRequestEvent } from '../messages/message-factories.js';
import { ScriptedChatClient, scriptedToolCall } from '../models/scripted-chat-client.js';
import { Agent } from './agent.js';
import { tool } from './tool.js';
import type { ToolMiddleware } from './tool-execution.js';

const weather = tool({
  name: 'weather',
  description: 'Weather in a city.',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `Sunny in ${city}`,
});

describe('Agent: middleware, call ids, aborts and failures', () => {
  it('runs middleware around tool calls, outermost first', async () => {
    const seen: string[] = [];
    const client = new ScriptedChatClient([scriptedToolCall('weather', { city: 'Oslo' }, 'c1')]);
    const agent = new Agent({
      name: 'helper',
      client,
      tools: [weather],
      middleware: [
        async (call, next) => {
          seen.push(`audit ${call.name}`);
          return next(call);
        },
        async (call, next) => {
          const result = await next({ ...call, arguments: '{"city":"Rome"}' });
          return { ...result, content: result.content.toUpperCase() };
        },
      ],
    });
    const response = await agent.respond(createTestContext().ctx);
    expect(seen).toEqual(['audit weather']);
    expect(shape(response.chatMessage)).toMatchObject({ content: 'SUNNY IN ROME' });
  });

  it('pairs whatever a middleware returns with the call it answers', async () => {
    const client = new ScriptedChatClient([scriptedToolCall('weather', { city: 'Oslo' }, 'c1')]);
    const sloppy: ToolMiddleware = async () =>
      ({
        callId: 'other',
        name: 'x',
        content: 42,
        extra: true,
      }) as unknown as FunctionExecutionResult;
    const agent = new Agent({ name: 'helper', client, tools: [weather], middleware: [sloppy] });
    const response = await agent.respond(createTestContext().ctx);
    expect(response.innerMessages?.[1]?.content).toEqual([
      { callId: 'c1', name: 'weather', content: '42', isError: false },
    ]);
  });

  it('gives repeated or missing call ids fresh ones so every result pairs with its call', async () => {
    const earlier = [
      toolCallRequestEvent({
        source: 'helper',
        content: [{ id: 'call_0', name: 'weather', arguments: '{}' }],
      }),
      toolCallExecutionEvent({
        source: 'helper',
        content: [{ callId: 'call_0', name: 'weather', content: 'x', isError: false }],
      }),
    ];
    const client = new ScriptedChatClient([
      {
        toolCalls: [
          { id: 'call_0', name: 'weather', arguments: '{"city":"A"}' },
          { id: '', name: 'weather', arguments: '{"city":"B"}' },
          { id: 'call_1', name: 'weather', arguments: '{"city":"C"}' },
          { id: 'call_1', name: 'weather', arguments: '{"city":"D"}' },
        ],
      },
    ]);
    const agent = new Agent({ name: 'helper', client, tools: [weather] });
    const response = await agent.respond(createTestContext({ conversation: earlier }).ctx);
    const request = response.innerMessages?.[0];
    if (request?.type !== 'ToolCallRequestEvent') throw new Error('expected a request event');
    const ids = request.content.map((c) => c.id);
    expect(ids[2]).toBe('call_1');
    expect(new Set([...ids, 'call_0']).size).toBe(5);
    const execution = response.innerMessages?.[1];
    if (execution?.type !== 'ToolCallExecutionEvent')
      throw new Error('expected an execution event');
    expect(execution.content.map((r) => r.callId)).toEqual(ids);
  });

  it('rejects when the turn is aborted while the model is thinking', async () => {
    const client = new ScriptedChatClient(() => new Promise(() => {}));
    const agent = new Agent({ name: 'helper', client });
    const controller = new AbortController();
    const pending = agent.respond(createTestContext({ signal: controller.signal }).ctx);
    controller.abort(new Error('cancelled by the user'));
    await expect(pending).rejects.toThrow('cancelled by the user');
  });

  it('rejects when the turn is aborted while a tool runs, without a summary', async () => {
    const controller = new AbortController();
    const slow = tool({
      name: 'slow',
      parameters: z.object({}),
      execute: () => {
        controller.abort(new Error('stop now'));
        return new Promise(() => {});
      },
    });
    const client = new ScriptedChatClient([scriptedToolCall('slow', {}, 'c1')]);
    const agent = new Agent({
      name: 'helper',
      client,
      tools: [slow],
      timer: new ManualTimer().timer,
    });
    await expect(
      agent.respond(createTestContext({ signal: controller.signal }).ctx),
    ).rejects.toThrow('stop now');
  });

  it('passes the model call error on', async () => {
    const client = new ScriptedChatClient([new Error('Model "m" request failed: 500 boom')]);
    const agent = new Agent({ name: 'helper', client });
    await expect(agent.respond(createTestContext().ctx)).rejects.toThrow(
      'Model "m" request failed: 500 boom',
    );
  });
});
