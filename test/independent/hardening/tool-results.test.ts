import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  type AgentMessage,
  type FunctionExecutionResult,
  HandoffBuilder,
  type LLMMessage,
  type ModelResult,
  type TaskResult,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  tool,
} from '../../../src/index.js';

/**
 * Issue 12, items 1 and 12, as an outside user meets them: tools that return or throw values
 * `String()` cannot convert, and a run with an AbortSignal and many parallel tool calls.
 */

const rejections: unknown[] = [];
const warnings: Error[] = [];
let onNextRejection: (reason: unknown) => void = () => {};
const onRejection = (reason: unknown) => {
  rejections.push(reason);
  onNextRejection(reason);
};
const onWarning = (warning: Error) => warnings.push(warning);
beforeEach(() => {
  rejections.length = 0;
  warnings.length = 0;
  process.on('unhandledRejection', onRejection);
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('unhandledRejection', onRejection);
  process.off('warning', onWarning);
});

/**
 * Runs `workflow.run(task)`, failing at once with the reason when an unhandled rejection is seen
 * meanwhile (the fault hangs the run until the tool timeout otherwise).
 */
function runWatched(
  workflow: { run(task: string): Promise<TaskResult> },
  task: string,
): Promise<TaskResult> {
  const seen = new Promise<never>((_, reject) => {
    onNextRejection = (reason) =>
      reject(new Error(`unhandledRejection during the run: ${describeReason(reason)}`));
  });
  return Promise.race([workflow.run(task), seen]).finally(() => {
    onNextRejection = () => {};
  });
}

function describeReason(reason: unknown): string {
  try {
    return reason instanceof Error ? `${reason.name}: ${reason.message}` : typeof reason;
  } catch {
    return 'an unprintable value';
  }
}

/** Lets queued microtasks, nextTicks and immediates run (rejections and warnings surface there). */
const settle = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/** One agent with one tool `hostile`; the model calls it once, then asks the user a question. */
function deskWith(execute: () => unknown) {
  const hostile = tool({
    name: 'hostile',
    description: 'Returns or throws something odd.',
    parameters: z.object({}),
    execute: execute as () => Promise<string>,
  });
  const client = new ScriptedChatClient([
    scriptedToolCall('hostile', {}),
    scriptedText('Anything else?'),
  ]);
  const helper = new Agent({ name: 'helper', client, tools: [hostile], maxToolIterations: 2 });
  const workflow = new HandoffBuilder({ participants: [helper] }).coordinator(helper).build();
  return { workflow, client };
}

function resultsOf(messages: readonly AgentMessage[]): FunctionExecutionResult[] {
  return messages.flatMap((m) => (m.type === 'ToolCallExecutionEvent' ? m.content : []));
}

function toolMessages(messages: readonly LLMMessage[]): LLMMessage[] {
  return messages.filter((m) => m.role === 'tool');
}

const bigintRow = () => ({ id: 12345678901234567890n, name: 'INV-1', nested: { total: 4900n } });
const nullProto = () =>
  Object.assign(Object.create(null) as object, { invoice: 'INV-1', cents: 4900 });
const throwingToString = () => ({
  toString() {
    throw new Error('toString exploded');
  },
  valueOf() {
    throw new Error('valueOf exploded');
  },
});
const circular = () => {
  const o: Record<string, unknown> = { name: 'loop' };
  o.self = o;
  return o;
};
const circularWithBigInt = () => {
  const o: Record<string, unknown> = { n: 1n };
  o.self = o;
  return o;
};
const hostileProxy = () =>
  new Proxy(
    {},
    {
      get() {
        throw new Error('proxy get trap');
      },
      ownKeys() {
        throw new Error('proxy ownKeys trap');
      },
      getOwnPropertyDescriptor() {
        throw new Error('proxy descriptor trap');
      },
      getPrototypeOf() {
        throw new Error('proxy prototype trap');
      },
      has() {
        throw new Error('proxy has trap');
      },
    },
  );
const throwingToJSON = () => ({
  toJSON() {
    throw new Error('toJSON exploded');
  },
  toString() {
    throw new Error('toString exploded');
  },
});

const values: [string, () => unknown][] = [
  ['a null-prototype object', nullProto],
  ['an object holding a BigInt (a database row)', bigintRow],
  ['a bare BigInt', () => 42n],
  ['an object whose toString and valueOf throw', throwingToString],
  ['a circular object', circular],
  ['a circular object holding a BigInt', circularWithBigInt],
  ['a Proxy whose every trap throws', hostileProxy],
  ['an object whose toJSON and toString throw', throwingToJSON],
  ['a Symbol', () => Symbol('odd')],
  ['undefined', () => undefined],
  ['a function', () => () => 1],
];

describe('a tool result String() cannot convert never kills or hangs the run (item 1)', () => {
  for (const [what, make] of values) {
    it(`returned: ${what} → the run finishes and the model gets a text result`, async () => {
      const { workflow, client } = deskWith(async () => make());
      const result = await runWatched(workflow, 'look it up');
      await settle();
      expect(rejections).toEqual([]);
      expect(result.status).toBe('awaiting_input');
      expect(result.pendingRequest?.prompt).toBe('Anything else?');
      const [only, ...more] = resultsOf(result.messages);
      expect(more).toEqual([]);
      expect(only?.name).toBe('hostile');
      expect(typeof only?.content).toBe('string');
      expect(client.calls).toHaveLength(2);
      const sent = toolMessages(client.calls[1]?.messages ?? []);
      expect(sent).toHaveLength(1);
      expect(typeof (sent[0] as { content: unknown }).content).toBe('string');
      // The thread is still plain JSON after the hostile value passed through it.
      const thread = await workflow.session(result.sessionId).messages();
      expect(JSON.parse(JSON.stringify(thread))).toEqual(thread);
    });

    it(`thrown: ${what} → an error result naming the tool, and the run goes on`, async () => {
      const { workflow, client } = deskWith(async () => {
        throw make();
      });
      const result = await runWatched(workflow, 'look it up');
      await settle();
      expect(rejections).toEqual([]);
      expect(result.status).toBe('awaiting_input');
      const [only, ...more] = resultsOf(result.messages);
      expect(more).toEqual([]);
      expect(only?.isError).toBe(true);
      expect(typeof only?.content).toBe('string');
      expect(only?.content).toContain('hostile');
      expect(client.calls).toHaveLength(2);
    });
  }

  it('a synchronous execute that throws a null-prototype object is an error result too', async () => {
    const { workflow } = deskWith(() => {
      throw nullProto();
    });
    const result = await runWatched(workflow, 'look it up');
    await settle();
    expect(rejections).toEqual([]);
    expect(resultsOf(result.messages).map((r) => [r.name, r.isError])).toEqual([['hostile', true]]);
  });

  it('a BigInt row keeps its digits in the text the model receives', async () => {
    const { workflow, client } = deskWith(async () => bigintRow());
    await workflow.run('look it up');
    const sent = toolMessages(client.calls[1]?.messages ?? [])[0] as { content: string };
    expect(sent.content).toContain('12345678901234567890');
    expect(sent.content).toContain('4900');
    expect(sent.content).toContain('INV-1');
  });

  it('a null-prototype row keeps its fields in the text the model receives', async () => {
    const { workflow, client } = deskWith(async () => nullProto());
    await workflow.run('look it up');
    const sent = toolMessages(client.calls[1]?.messages ?? [])[0] as { content: string };
    expect(sent.content).toContain('INV-1');
    expect(sent.content).toContain('4900');
  });

  it('an error whose message getter throws is still an error result naming the tool', async () => {
    const { workflow } = deskWith(async () => {
      const error = new Error('x');
      Object.defineProperty(error, 'message', {
        get() {
          throw new Error('message getter exploded');
        },
      });
      throw error;
    });
    const result = await runWatched(workflow, 'look it up');
    await settle();
    expect(rejections).toEqual([]);
    const [only] = resultsOf(result.messages);
    expect(only?.isError).toBe(true);
    expect(only?.content).toContain('hostile');
  });
});

describe('parallel tool calls under an AbortSignal do not leak listeners (item 12)', () => {
  /** A model that calls `count` tools in one response, then answers. */
  function parallelDesk(count: number) {
    const executed: string[] = [];
    const slow = tool({
      name: 'slow',
      description: 'Takes a few ticks.',
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }, ctx) => {
        for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
        expect(ctx.signal.aborted).toBe(false);
        executed.push(String(n));
        return `done ${n}`;
      },
    });
    const calls = Array.from({ length: count }, (_, n) => ({
      id: `call_${n}`,
      name: 'slow',
      arguments: JSON.stringify({ n }),
    }));
    const first: ModelResult = {
      content: null,
      toolCalls: calls,
      usage: { promptTokens: 1, completionTokens: 1 },
    };
    const client = new ScriptedChatClient([first, scriptedText('All done. More?')]);
    const helper = new Agent({ name: 'helper', client, tools: [slow], maxToolIterations: 2 });
    const workflow = new HandoffBuilder({ participants: [helper] }).coordinator(helper).build();
    return { workflow, executed };
  }

  for (const count of [11, 25, 100]) {
    it(`${count} parallel calls with a signal: every call has one result, no MaxListenersExceededWarning`, async () => {
      const { workflow, executed } = parallelDesk(count);
      const controller = new AbortController();
      const result = await workflow.run('go', { signal: controller.signal });
      await settle();
      expect(result.status).toBe('awaiting_input');
      expect(executed).toHaveLength(count);
      const results = resultsOf(result.messages);
      expect(results.map((r) => r.callId).sort()).toEqual(
        Array.from({ length: count }, (_, n) => `call_${n}`).sort(),
      );
      expect(results.every((r) => !r.isError)).toBe(true);
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      expect(rejections).toEqual([]);
    });
  }

  it('aborting mid-batch still reaches every one of 12 parallel calls, without a warning', async () => {
    const controller = new AbortController();
    const started: number[] = [];
    const aborted: number[] = [];
    const waiting = tool({
      name: 'waiting',
      description: 'Waits for the run to be aborted.',
      parameters: z.object({ n: z.number() }),
      execute: ({ n }, ctx) =>
        new Promise<string>((resolve) => {
          started.push(n);
          ctx.signal.addEventListener('abort', () => {
            aborted.push(n);
            resolve(`aborted ${n}`);
          });
          if (started.length === 12) controller.abort();
        }),
    });
    const calls = Array.from({ length: 12 }, (_, n) => ({
      id: `call_${n}`,
      name: 'waiting',
      arguments: JSON.stringify({ n }),
    }));
    const client = new ScriptedChatClient([
      { content: null, toolCalls: calls, usage: { promptTokens: 1, completionTokens: 1 } },
      scriptedText('unreachable'),
    ]);
    const helper = new Agent({ name: 'helper', client, tools: [waiting], maxToolIterations: 2 });
    const workflow = new HandoffBuilder({ participants: [helper] }).coordinator(helper).build();
    const result = await workflow.run('go', { signal: controller.signal });
    await settle();
    expect(result.status).toBe('cancelled');
    expect(result.stopReason).toBeNull();
    expect(started.sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, n) => n));
    expect(aborted.sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, n) => n));
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    expect(rejections).toEqual([]);
  });

  it('ten runs in a row on one signal do not pile listeners onto it', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 10; i++) {
      const { workflow } = parallelDesk(3);
      const result = await workflow.run('go', { signal: controller.signal });
      expect(result.status).toBe('awaiting_input');
    }
    await settle();
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});
