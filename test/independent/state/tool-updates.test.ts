// Independent suite for API.md §18: what tools see and change (ctx.state, ctx.updateState), the
// batch rules, invalid and discarded updates, and `instructions` as a function of the state.
// Written from API.md alone. Readings where the page is open:
// - a thrown error becomes the §4 error result `Tool "<name>" failed: <message>` (the text the
//   existing engine gives; only `isError` and the tool's name are asserted where the page is open);
// - the ConfigError of an invalid update names the failing field in its message.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  ConfigError,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  tool,
  type ToolCallExecutionEvent,
} from '../../../src/index.js';
import {
  call,
  ctxOf,
  deepFrozen,
  desk,
  Desk,
  type DeskState,
  INITIAL,
  lastMessage,
  stateOf,
  systemText,
} from './support.js';

const Notes = z.object({ seen: z.record(z.string(), z.boolean()), last: z.string().nullable() });
type NotesState = z.infer<typeof Notes>;

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A one-agent workflow whose agent `clerk` answers with `steps` and has `tools`. */
function clerkDesk(
  tools: ReturnType<typeof tool>[],
  steps: ConstructorParameters<typeof ScriptedChatClient>[0],
  state: { schema: z.ZodType; initial: unknown },
  instructions?: (ctx: {
    state: unknown;
    sessionId: string;
    agent: string;
  }) => string | Promise<string>,
) {
  const client = new ScriptedChatClient(steps);
  const clerk = new Agent({
    name: 'clerk',
    tools,
    maxToolIterations: 4,
    client,
    ...(instructions ? { instructions } : {}),
  } as ConstructorParameters<typeof Agent>[0]);
  const workflow = new HandoffBuilder({
    name: 'clerk-desk',
    participants: [clerk],
    state,
  } as ConstructorParameters<typeof HandoffBuilder>[0])
    .coordinator(clerk)
    .withCheckpointing(new MemoryCheckpointStore())
    .build();
  return { workflow, client };
}

const resultsOf = (messages: readonly { type: string }[]) =>
  messages
    .filter((m): m is ToolCallExecutionEvent => m.type === 'ToolCallExecutionEvent')
    .flatMap((m) => m.content);

describe('ctx.state and ctx.updateState in tools (API.md §18)', () => {
  it('a batch: each call sees the batch start plus its own updates, deep-frozen; updates applied in call order', async () => {
    const bFinished = deferred();
    const before: Record<string, unknown> = {};
    const after: Record<string, unknown> = {};
    const note = tool({
      name: 'note',
      description: 'Notes a key.',
      parameters: z.object({ key: z.string() }),
      execute: async ({ key }, raw) => {
        const ctx = ctxOf(raw);
        // `a` is first in call order but finishes last: it waits for `b` (the calls run concurrently).
        if (key === 'a') await bFinished.promise;
        before[key] = ctx.state;
        ctx.updateState((draft: NotesState) => {
          draft.seen[key] = true;
          draft.last = key;
        });
        after[key] = ctx.state;
        if (key === 'b') bFinished.resolve();
        return `noted ${key}`;
      },
    });
    const { workflow, client } = clerkDesk(
      [note],
      [
        { content: null, toolCalls: [call('note', { key: 'a' }), call('note', { key: 'b' })] },
        { content: 'done' },
      ],
      { schema: Notes, initial: { seen: { start: true }, last: null } },
    );
    const session = workflow.session('batch');
    const result = await session.run('note both');
    expect(result.status).toBe('awaiting_input');
    expect(resultsOf(result.messages).map((r) => [r.name, r.content, r.isError])).toEqual([
      ['note', 'noted a', false],
      ['note', 'noted b', false],
    ]);
    const start = { seen: { start: true }, last: null };
    expect(before).toEqual({ a: start, b: start });
    expect(after).toEqual({
      a: { seen: { start: true, a: true }, last: 'a' },
      b: { seen: { start: true, b: true }, last: 'b' },
    });
    for (const value of [...Object.values(before), ...Object.values(after)]) {
      expect(deepFrozen(value)).toBe(true);
    }
    // Call order, not finishing order: b's `last` is applied after a's.
    expect(await stateOf(session).state()).toEqual({
      seen: { start: true, a: true, b: true },
      last: 'b',
    });
    expect(client.calls).toHaveLength(2);
  });

  it('ctx.state cannot be changed in place: the frozen view throws and the state stays', async () => {
    const outcomes: string[] = [];
    const poke = tool({
      name: 'poke',
      description: 'Tries to write ctx.state directly.',
      parameters: z.object({}),
      execute: async (_args, raw) => {
        const state = ctxOf(raw).state as DeskState;
        try {
          state.verified = true;
          outcomes.push('written');
        } catch (error) {
          outcomes.push((error as Error).constructor.name);
        }
        return 'poked';
      },
    });
    const { workflow } = clerkDesk(
      [poke],
      [{ content: null, toolCalls: [call('poke')] }, { content: 'ok' }],
      { schema: Desk, initial: INITIAL },
    );
    const session = workflow.session('poke');
    await session.run('poke');
    expect(outcomes).toEqual(['TypeError']);
    expect(await stateOf(session).state()).toEqual(INITIAL);
  });

  it('an invalid update throws ConfigError inside the tool and changes nothing; uncaught, it is the error result', async () => {
    const caught: unknown[] = [];
    const viewAfterFailure: unknown[] = [];
    const setPriority = tool({
      name: 'set_priority',
      description: 'Sets the priority.',
      parameters: z.object({ priority: z.string(), catchIt: z.boolean() }),
      execute: async ({ priority, catchIt }, raw) => {
        const ctx = ctxOf(raw);
        const apply = () =>
          ctx.updateState((draft: DeskState) => {
            draft.priority = priority as DeskState['priority'];
          });
        if (!catchIt) {
          apply();
          return 'set';
        }
        try {
          apply();
        } catch (error) {
          caught.push(error);
        }
        viewAfterFailure.push(ctx.state);
        // A valid update after the failed one still counts.
        ctx.updateState((draft: DeskState) => {
          draft.customerId = 'C-after';
        });
        return 'handled';
      },
    });
    const { workflow, client } = clerkDesk(
      [setPriority],
      [
        {
          content: null,
          toolCalls: [call('set_priority', { priority: 'urgent', catchIt: false })],
        },
        { content: null, toolCalls: [call('set_priority', { priority: 'urgent', catchIt: true })] },
        { content: 'done' },
      ],
      { schema: Desk, initial: INITIAL },
    );
    const session = workflow.session('invalid');
    const result = await session.run('make it urgent');
    const [uncaught, handled] = resultsOf(result.messages);
    expect(uncaught!.isError).toBe(true);
    expect(uncaught!.name).toBe('set_priority');
    expect(uncaught!.content).toContain('set_priority');
    expect(uncaught!.content).toContain('priority');
    expect(handled).toMatchObject({ name: 'set_priority', content: 'handled', isError: false });
    expect(caught).toHaveLength(1);
    expect(caught[0]).toBeInstanceOf(ConfigError);
    expect((caught[0] as Error).message).toContain('priority');
    expect(viewAfterFailure).toEqual([INITIAL]);
    // The model got the error result as the tool message of its second call.
    expect(lastMessage(client.calls[1]!)).toMatchObject({
      role: 'tool',
      content: uncaught!.content,
    });
    expect(await stateOf(session).state()).toEqual({ ...INITIAL, customerId: 'C-after' });
  });

  it("a call that throws has its updates discarded; the batch's other calls keep theirs", async () => {
    const flaky = tool({
      name: 'flaky',
      description: 'Updates, then fails.',
      parameters: z.object({}),
      execute: async (_args, raw) => {
        ctxOf(raw).updateState((draft: DeskState) => {
          draft.verified = true;
        });
        throw new Error('boom');
      },
    });
    const steady = tool({
      name: 'steady',
      description: 'Updates and succeeds.',
      parameters: z.object({}),
      execute: async (_args, raw) => {
        ctxOf(raw).updateState((draft: DeskState) => {
          draft.customerId = 'C-9';
        });
        return 'fine';
      },
    });
    const { workflow } = clerkDesk(
      [flaky, steady],
      [{ content: null, toolCalls: [call('flaky'), call('steady')] }, { content: 'done' }],
      { schema: Desk, initial: INITIAL },
    );
    const session = workflow.session('throwing');
    const result = await session.run('go');
    expect(resultsOf(result.messages).map((r) => [r.name, r.content, r.isError])).toEqual([
      ['flaky', 'Tool "flaky" failed: boom', true],
      ['steady', 'fine', false],
    ]);
    expect(await stateOf(session).state()).toEqual({ ...INITIAL, customerId: 'C-9' });
  });

  it('instructions as a function see an update a tool made earlier in the same turn', async () => {
    const { workflow, billingClient, instructionsSeen } = desk();
    const session = workflow.session('instructions');
    const result = await session.run('please verify C-42');
    expect(result.status).toBe('awaiting_input');
    expect(result.pendingRequest!.prompt).toBe('Verified C-42');
    expect(billingClient.calls.map(systemText)).toEqual([
      'Customer unknown, verified false, priority low.',
      'Customer C-42, verified true, priority low.',
    ]);
    expect(instructionsSeen).toEqual([INITIAL, { ...INITIAL, customerId: 'C-42', verified: true }]);
    for (const seen of instructionsSeen) expect(deepFrozen(seen)).toBe(true);
    expect(await stateOf(session).state()).toEqual({
      ...INITIAL,
      customerId: 'C-42',
      verified: true,
    });
  });

  it('instructions receive {state, sessionId, agent} and may be async', async () => {
    const seen: unknown[] = [];
    const { workflow, client } = clerkDesk(
      [],
      [{ content: 'hi' }],
      { schema: Desk, initial: { ...INITIAL, customerId: 'C-1' } },
      async (ctx) => {
        seen.push({ sessionId: ctx.sessionId, agent: ctx.agent, state: ctx.state });
        await new Promise((resolve) => setTimeout(resolve, 5));
        return `async for ${(ctx.state as DeskState).customerId}`;
      },
    );
    await workflow.session('ctx-fields').run('hello');
    expect(seen).toEqual([
      { sessionId: 'ctx-fields', agent: 'clerk', state: { ...INITIAL, customerId: 'C-1' } },
    ]);
    expect(systemText(client.calls[0]!)).toBe('async for C-1');
  });

  it('the state is carried across the pause and across hops', async () => {
    const { workflow, billingClient } = desk();
    const session = workflow.session('across');
    await session.run('verify C-7');
    const second = await session.run('make it high');
    expect(second.pendingRequest!.prompt).toBe('Escalated');
    expect(billingClient.calls.map(systemText)).toEqual([
      'Customer unknown, verified false, priority low.',
      'Customer C-7, verified true, priority low.',
      'Customer C-7, verified true, priority low.',
      'Customer C-7, verified true, priority high.',
    ]);
    expect(await stateOf(session).state()).toEqual({
      customerId: 'C-7',
      verified: true,
      priority: 'high',
    });
  });
});
