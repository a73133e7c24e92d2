import { getEventListeners } from 'node:events';

import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { ManualTimer } from '../../test/support/test-context.js';
import type { FunctionCall } from '../messages/message.js';
import { type Tool, tool } from './tool.js';
import { toolExecutor } from './tool-execution.js';

const call = (name: string, id = 'c1'): FunctionCall => ({ id, name, arguments: '{}' });

function executor(tools: Tool[], signal = new AbortController().signal) {
  return toolExecutor(new Map(tools.map((t) => [t.name, t])), {
    context: { signal, sessionId: 's1', agent: 'clerk' },
    offered: tools.map((t) => t.name),
    timer: new ManualTimer().timer,
  });
}

describe('toolExecutor() with many parallel calls', () => {
  it('adds one abort listener to the run signal however many calls are running', async () => {
    const controller = new AbortController();
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const wait = tool({ name: 'wait', parameters: z.object({}), execute: () => gate });
    const run = executor([wait], controller.signal);
    const pending = Array.from({ length: 12 }, (_, i) => run(call('wait', `c${i}`)));
    await Promise.resolve();
    await Promise.resolve();
    expect(getEventListeners(controller.signal, 'abort').length).toBe(1);
    release();
    const results = await Promise.all(pending);
    expect(results.map((r) => r.isError)).toEqual(Array(12).fill(false));
    expect(getEventListeners(controller.signal, 'abort').length).toBe(0);
  });

  it('still cancels every running call when the run is aborted', async () => {
    const controller = new AbortController();
    const hang = tool({
      name: 'hang',
      parameters: z.object({}),
      execute: () => new Promise(() => {}),
    });
    const run = executor([hang], controller.signal);
    const pending = Array.from({ length: 12 }, (_, i) => run(call('hang', `c${i}`)));
    await Promise.resolve();
    controller.abort();
    const results = await Promise.all(pending);
    expect(new Set(results.map((r) => r.content))).toEqual(new Set(['Tool "hang" was cancelled.']));
    expect(getEventListeners(controller.signal, 'abort').length).toBe(0);
  });
});
