import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { ManualTimer } from '../../test/support/test-context.js';
import type { FunctionCall, FunctionExecutionResult } from '../messages/message.js';
import { type Tool, type ToolContext, tool } from './tool.js';
import { composeToolMiddleware, type ToolMiddleware, toolExecutor } from './tool-execution.js';

const call = (name: string, args: string, id = 'c1'): FunctionCall => ({
  id,
  name,
  arguments: args,
});
const error = (name: string, content: string, callId = 'c1'): FunctionExecutionResult => ({
  callId,
  name,
  content,
  isError: true,
});

function executor(tools: Tool[], options: { signal?: AbortSignal; timer?: ManualTimer } = {}) {
  const context: Omit<ToolContext, 'callId' | 'state' | 'updateState'> = {
    signal: options.signal ?? new AbortController().signal,
    sessionId: 's1',
    agent: 'clerk',
  };
  return toolExecutor(new Map(tools.map((t) => [t.name, t])), {
    context,
    offered: tools.map((t) => t.name),
    timer: (options.timer ?? new ManualTimer()).timer,
  });
}

const add = tool({
  name: 'add',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
});

describe('toolExecutor()', () => {
  it('runs the tool with validated arguments and sends non-text results as JSON', async () => {
    expect(await executor([add])(call('add', '{"a":1,"b":2}'))).toEqual({
      callId: 'c1',
      name: 'add',
      content: '{"sum":3}',
      isError: false,
    });
  });

  it('passes the session, the agent and a signal to the tool', async () => {
    const seen: unknown[] = [];
    const probe = tool({
      name: 'probe',
      parameters: z.object({}),
      execute: (_args, ctx) => {
        seen.push(ctx.sessionId, ctx.agent, ctx.signal instanceof AbortSignal);
        return undefined;
      },
    });
    expect(await executor([probe])(call('probe', ''))).toMatchObject({
      content: '',
      isError: false,
    });
    expect(seen).toEqual(['s1', 'clerk', true]);
  });

  it('turns an unknown tool into an error result listing the tools offered', async () => {
    expect(await executor([add])(call('mul', '{}'))).toEqual(
      error('mul', 'Unknown tool "mul". Available tools: add.'),
    );
    expect(await executor([])(call('mul', '{}'))).toEqual(
      error('mul', 'Unknown tool "mul". No tools are available.'),
    );
  });

  it('turns arguments that are not JSON into an error result', async () => {
    expect(await executor([add])(call('add', '{"a":1,'))).toEqual(
      error(
        'add',
        'Tool "add" received arguments that are not valid JSON: {"a":1,. Send the arguments as ' +
          'one JSON object.',
      ),
    );
  });

  it('turns arguments that fail the schema into an error result naming each field', async () => {
    expect(await executor([add])(call('add', '{"a":"1"}'))).toEqual(
      error(
        'add',
        'Tool "add" received invalid arguments: a: Invalid input: expected number, received ' +
          'string; b: Invalid input: expected number, received undefined. Fix them and call the ' +
          'tool again.',
      ),
    );
  });

  it('turns a thrown error or a rejection into an error result', async () => {
    const boom = tool({
      name: 'boom',
      parameters: z.object({}),
      execute: () => {
        throw new Error('database is down');
      },
    });
    const reject = tool({
      name: 'reject',
      parameters: z.object({}),
      execute: () => Promise.reject('plain string'),
    });
    expect(await executor([boom])(call('boom', '{}'))).toEqual(
      error('boom', 'Tool "boom" failed: database is down'),
    );
    expect(await executor([reject])(call('reject', '{}'))).toEqual(
      error('reject', 'Tool "reject" failed: plain string'),
    );
  });

  it('turns a timeout into an error result and aborts the tool', async () => {
    const seen: string[] = [];
    const slow = tool({
      name: 'slow',
      parameters: z.object({}),
      timeoutMs: 2500,
      execute: (_args, ctx) =>
        new Promise(() => {
          ctx.signal.addEventListener('abort', () => seen.push('aborted'));
        }),
    });
    const timer = new ManualTimer();
    const pending = executor([slow], { timer })(call('slow', '{}'));
    await Promise.resolve();
    expect(timer.pending).toEqual([2500]);
    timer.fireAll();
    expect(await pending).toEqual(error('slow', 'Tool "slow" timed out after 2500 ms.'));
    expect(seen).toEqual(['aborted']);
  });

  it('cancels the timer when the tool finishes', async () => {
    const timer = new ManualTimer();
    await executor([add], { timer })(call('add', '{"a":1,"b":1}'));
    expect(timer.pending).toEqual([]);
  });

  it('turns a cancelled run into an error result', async () => {
    const hang = tool({
      name: 'hang',
      parameters: z.object({}),
      execute: () => new Promise(() => {}),
    });
    const controller = new AbortController();
    const pending = executor([hang], { signal: controller.signal })(call('hang', '{}'));
    controller.abort();
    expect(await pending).toEqual(error('hang', 'Tool "hang" was cancelled.'));
    const already = executor([hang], { signal: AbortSignal.abort() })(call('hang', '{}'));
    expect(await already).toEqual(error('hang', 'Tool "hang" was cancelled.'));
  });
});

describe('composeToolMiddleware()', () => {
  const echo = async (c: FunctionCall): Promise<FunctionExecutionResult> => ({
    callId: c.id,
    name: c.name,
    content: c.arguments,
    isError: false,
  });

  it('runs the layers as an onion, each able to change the call and the result', async () => {
    const seen: string[] = [];
    const outer: ToolMiddleware = async (c, next) => {
      seen.push('outer in');
      const result = await next({ ...c, arguments: `${c.arguments}+outer` });
      seen.push('outer out');
      return { ...result, content: `[${result.content}]` };
    };
    const inner: ToolMiddleware = async (c, next) => {
      seen.push('inner');
      return next({ ...c, arguments: `${c.arguments}+inner` });
    };
    const result = await composeToolMiddleware([outer, inner], echo)(call('f', 'args'));
    expect(result.content).toBe('[args+outer+inner]');
    expect(seen).toEqual(['outer in', 'inner', 'outer out']);
  });

  it('lets a layer answer without calling next', async () => {
    const deny: ToolMiddleware = async (c) => ({ ...error(c.name, 'denied', c.id) });
    expect(await composeToolMiddleware([deny], echo)(call('f', '{}'))).toEqual(
      error('f', 'denied'),
    );
  });

  it('rejects a layer that calls next twice', async () => {
    const twice: ToolMiddleware = async (c, next) => {
      await next(c);
      return next(c);
    };
    await expect(composeToolMiddleware([twice], echo)(call('f', '{}'))).rejects.toThrow(
      'Tool middleware #1 called next() more than once.',
    );
  });
});
