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

const returning = (value: unknown) =>
  tool({ name: 'odd', parameters: z.object({}), execute: () => value });
const throwing = (value: unknown) =>
  tool({
    name: 'odd',
    parameters: z.object({}),
    execute: () => {
      throw value;
    },
  });

const nullProto = (): object => Object.assign(Object.create(null) as object, { a: 1 });
const throwingToString = {
  toString() {
    throw new Error('no text');
  },
  toJSON() {
    throw new Error('no json');
  },
};

describe('toolExecutor() with results that String() cannot convert', () => {
  it('sends a null-prototype object or a row holding a BigInt as JSON', async () => {
    expect(await executor([returning(nullProto())])(call('odd'))).toEqual({
      callId: 'c1',
      name: 'odd',
      content: '{"a":1}',
      isError: false,
    });
    const row = Object.assign(Object.create(null) as object, { id: 12n, total: 3 });
    expect(await executor([returning(row)])(call('odd'))).toEqual({
      callId: 'c1',
      name: 'odd',
      content: '{"id":"12","total":3}',
      isError: false,
    });
  });

  it('falls back to a type tag when neither JSON nor toString works', async () => {
    expect(await executor([returning(throwingToString)])(call('odd'))).toEqual({
      callId: 'c1',
      name: 'odd',
      content: '[object Object]',
      isError: false,
    });
  });

  it('turns a thrown value of any kind into an error result', async () => {
    const run = async (value: unknown) => (await executor([throwing(value)])(call('odd'))).content;
    expect(await run(nullProto())).toBe('Tool "odd" failed: {"a":1}');
    expect(await run(Object.assign(Object.create(null) as object, { n: 1n }))).toBe(
      'Tool "odd" failed: {"n":"1"}',
    );
    expect(await run(throwingToString)).toBe('Tool "odd" failed: [object Object]');
    expect(await run(Symbol('x'))).toBe('Tool "odd" failed: Symbol(x)');
  });
});
