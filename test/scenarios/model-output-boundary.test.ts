import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  type ChatClient,
  type CheckpointStore,
  HandoffBuilder,
  MemoryCheckpointStore,
  tool,
} from '../../src/index.js';

/** A ChatClient that answers with whatever it is given, unchecked, as a faulty provider would. */
function rawClient(script: unknown[]): ChatClient {
  const outputs = [...script];
  return {
    create: async () =>
      (outputs.shift() ?? {
        content: 'Anything else?',
        toolCalls: [],
        usage: { promptTokens: 1, completionTokens: 1 },
      }) as never,
  };
}

const lookup = tool({
  name: 'lookup',
  parameters: z.object({ id: z.string() }),
  execute: ({ id }) => `invoice ${id} is paid`,
});

/** A workflow object over `store`, as a fresh process would build it. */
function desk(store: CheckpointStore, triage: unknown[] = [], billing: unknown[] = []) {
  return new HandoffBuilder({
    name: 'support',
    participants: [
      new Agent({
        name: 'triage',
        client: rawClient(triage),
        tools: [lookup],
        maxToolIterations: 2,
      }),
      new Agent({ name: 'billing', client: rawClient(billing), tools: [lookup] }),
    ],
  })
    .coordinator('triage')
    .withCheckpointing(store)
    .build();
}

async function reloads(store: CheckpointStore, id: string, thread: unknown): Promise<void> {
  const fresh = desk(store).session(id);
  expect(await fresh.messages()).toEqual(thread);
}

describe('what a ChatClient returns is normalised before anything is committed', () => {
  it.each([
    [
      'non-integer usage',
      { content: 'hi', toolCalls: [], usage: { promptTokens: 1.5, completionTokens: 2 } },
    ],
    [
      'an empty tool name',
      { content: null, toolCalls: [{ id: 'c1', name: '', arguments: '{}' }], usage: {} },
    ],
    [
      'a tool call with no id',
      { content: null, toolCalls: [{ name: 'lookup', arguments: '{"id":"7"}' }] },
    ],
    ['non-string content', { content: { text: 'hi' }, toolCalls: [] }],
    [
      'arguments that are an object or null',
      {
        toolCalls: [
          { id: 'a', name: 'lookup', arguments: { id: '7' } },
          { id: 'b', name: 'lookup', arguments: null },
        ],
      },
    ],
  ])('%s: the run goes on and the session loads again', async (_what, output) => {
    const store = new MemoryCheckpointStore();
    const session = desk(store, [output]).session('s');
    const result = await session.run('hello');
    expect(result.status).toBe('awaiting_input');
    await reloads(store, 's', await session.messages());
  });

  it('turns the odd fields into valid values', async () => {
    const store = new MemoryCheckpointStore();
    const session = desk(store, [
      {
        content: 42,
        toolCalls: [
          { name: '', arguments: { id: '7' } },
          { id: 'b', name: 'lookup', arguments: null },
        ],
        usage: { promptTokens: 1.5, completionTokens: -2 },
        thought: 7,
      },
    ]).session('s');
    const result = await session.run('hello');
    const [, thought, contentThought, request, execution] = result.messages;
    expect(thought).toMatchObject({ type: 'ThoughtEvent', content: '7' });
    expect(contentThought).toMatchObject({ type: 'ThoughtEvent', content: '42' });
    expect(request).toMatchObject({
      type: 'ToolCallRequestEvent',
      usage: { promptTokens: 2, completionTokens: 0 },
      content: [
        { id: expect.stringMatching(/^call_/), name: 'unnamed_tool', arguments: '{"id":"7"}' },
        { id: 'b', name: 'lookup', arguments: '{}' },
      ],
    });
    expect(execution).toMatchObject({
      type: 'ToolCallExecutionEvent',
      content: [
        {
          name: 'unnamed_tool',
          isError: true,
          content: 'Unknown tool "unnamed_tool". Available tools: lookup, handoff_to_billing.',
        },
        { callId: 'b', name: 'lookup', isError: true },
      ],
    });
  });

  it('property: any model output leaves a session that a fresh workflow object loads', async () => {
    const anything = fc.oneof(
      fc.string(),
      fc.constant(null),
      fc.constant(undefined),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.object({ maxDepth: 2 }),
    );
    const call = fc.record(
      {
        id: fc.oneof(fc.constant(''), fc.constant('dup'), fc.string(), anything),
        name: fc.oneof(
          fc.constant('lookup'),
          fc.constant('handoff_to_billing'),
          fc.constant(''),
          anything,
        ),
        arguments: fc.oneof(fc.constant('{"id":"1"}'), fc.constant(''), anything),
      },
      { requiredKeys: [] },
    );
    const output = fc.oneof(
      fc.record(
        {
          content: anything,
          toolCalls: fc.oneof(
            fc.constant(undefined),
            fc.constant(null),
            fc.array(call, { maxLength: 3 }),
          ),
          usage: fc.oneof(
            anything,
            fc.record({ promptTokens: anything, completionTokens: anything }, { requiredKeys: [] }),
          ),
          thought: anything,
        },
        { requiredKeys: [] },
      ),
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(output, { maxLength: 4 }),
        fc.array(output, { maxLength: 2 }),
        async (triage, billing) => {
          const store = new MemoryCheckpointStore();
          const id = `p-${n++}`;
          const session = desk(store, triage, billing).session(id);
          await session.run('hello');
          await session.run('more');
          await reloads(store, id, await session.messages());
        },
      ),
      { numRuns: 150 },
    );
  });
});
