// Issue 32 (API.md §18): one conversation state per session, set by tools, read by the next
// specialist's instructions and tools, carried across pauses, restarts, forks and saveState.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  type CheckpointStore,
  ConfigError,
  GraphBuilder,
  HandoffBuilder,
  MemoryCheckpointStore,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  SelectorGroupChat,
  SessionBusyError,
  Swarm,
  tool,
} from '../../src/index.js';
import {
  openFile,
  openMemory,
  openPostgres,
  openRedis,
  type OpenStores,
} from '../support/store-fixtures.js';

const Desk = z.object({
  customerId: z.string().nullable(),
  verified: z.boolean(),
  priority: z.enum(['low', 'high']),
});
const INITIAL = { customerId: null, verified: false, priority: 'low' as const };

/** Every tool result and system message a client was sent, in order. */
const seen = (client: ScriptedChatClient) =>
  client.calls.map((c) => ({
    system: c.messages[0]?.role === 'system' ? c.messages[0].content : undefined,
    tools: (c.tools ?? []).map((t) => t.name),
    results: c.messages.flatMap((m) => (m.role === 'tool' ? [m.content] : [])),
  }));

/** A desk: triage records the customer with a tool and hands off to billing, who reads it. */
function desk(options: { store?: CheckpointStore; schema?: z.ZodType; customer?: string } = {}) {
  // Both tools change nothing outside the conversation state: `read`, so no start commits (§17).
  const recordCustomer = tool({
    name: 'record_customer',
    effect: 'read',
    parameters: z.object({ customerId: z.string(), verified: z.boolean() }),
    execute: ({ customerId, verified }, ctx) => {
      ctx.updateState((draft) => {
        draft.customerId = customerId;
        draft.verified = verified;
      });
      return `recorded ${JSON.stringify(ctx.state)}`;
    },
  });
  const readState = tool({
    name: 'read_state',
    effect: 'read',
    parameters: z.object({}),
    execute: (_args, ctx) => JSON.stringify(ctx.state),
  });
  const triageClient = new ScriptedChatClient([
    scriptedToolCall('record_customer', {
      customerId: options.customer ?? 'C-42',
      verified: true,
    }),
    scriptedToolCall('handoff_to_billing'),
  ]);
  const billingClient = new ScriptedChatClient([
    scriptedToolCall('read_state'),
    scriptedText('Which invoice?'),
    scriptedToolCall('read_state'),
    scriptedText('Refunded.'),
  ]);
  const triage = new Agent({
    name: 'triage',
    client: triageClient,
    tools: [recordCustomer],
    maxToolIterations: 2,
  });
  const billing = new Agent({
    name: 'billing',
    client: billingClient,
    tools: [readState],
    maxToolIterations: 2,
    instructions: (ctx) =>
      `The customer is ${String(ctx.state.customerId ?? 'unknown')} (${ctx.agent} in ${ctx.sessionId}).`,
  });
  let builder = new HandoffBuilder({
    name: 'desk',
    participants: [triage, billing],
    state: { schema: options.schema ?? Desk, initial: INITIAL },
  })
    .coordinator(triage)
    .withUserReplyRouting('last_agent');
  if (options.store !== undefined) builder = builder.withCheckpointing(options.store);
  return { workflow: builder.build(), triageClient, billingClient };
}

const AFTER = { customerId: 'C-42', verified: true, priority: 'low' };

describe('conversation state across hops', () => {
  it("a triage tool's update is seen by billing's instructions and tools, and by the app", async () => {
    const { workflow, triageClient, billingClient } = desk();
    const session = workflow.session('s1');
    expect(await session.state()).toEqual(INITIAL);
    const result = await session.run('My invoice is wrong');
    expect(result.status).toBe('awaiting_input');
    expect(seen(triageClient)[1]?.results).toEqual([`recorded ${JSON.stringify(AFTER)}`]);
    expect(seen(billingClient)).toEqual([
      {
        system: 'The customer is C-42 (billing in s1).',
        tools: ['read_state'],
        results: [],
      },
      {
        system: 'The customer is C-42 (billing in s1).',
        tools: ['read_state'],
        results: [JSON.stringify(AFTER)],
      },
    ]);
    const state = await session.state();
    expect(state).toEqual(AFTER);
    expect(Object.isFrozen(state)).toBe(true);
    expect((await session.info()).state).toEqual(AFTER);
  });

  it('saveState/loadState carry the state; a workflow without the option starts at {}', async () => {
    const { workflow } = desk();
    await workflow.session('s1').run('My invoice is wrong');
    const saved = await workflow.session('s1').saveState();
    const other = desk().workflow;
    await other.session('copy').loadState(saved);
    expect(await other.session('copy').state()).toEqual(AFTER);

    const plain = new HandoffBuilder({
      participants: [new Agent({ name: 'solo', client: new ScriptedChatClient([]) })],
    })
      .coordinator('solo')
      .build();
    expect(await plain.session('p').state()).toEqual({});
    expect(await plain.session('p').info()).toEqual({ status: 'idle', step: 0 });
    await plain.session('p').updateState((draft) => {
      draft.anything = { nested: [1, 'two'] };
    });
    expect(await plain.session('p').state()).toEqual({ anything: { nested: [1, 'two'] } });
  });

  it('build() checks `initial` against the schema', () => {
    const build = () =>
      new HandoffBuilder({
        participants: [new Agent({ name: 'solo', client: new ScriptedChatClient([]) })],
        state: { schema: Desk, initial: { ...INITIAL, priority: 'urgent' } },
      })
        .coordinator('solo')
        .build();
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/state\.initial is invalid at priority/);
    try {
      build();
    } catch (error) {
      expect((error as ConfigError).path).toBe('state.initial.priority');
    }
  });
});

describe('updates that change nothing', () => {
  it("a tool's invalid update is an error result for the model; the state is unchanged", async () => {
    const bad = tool({
      name: 'escalate',
      parameters: z.object({}),
      execute: (_args, ctx) => {
        ctx.updateState((draft) => {
          draft.priority = 'urgent';
        });
        return 'escalated';
      },
    });
    const client = new ScriptedChatClient([scriptedToolCall('escalate', {}, 'c1')]);
    const solo = new Agent({ name: 'solo', client, tools: [bad] });
    const workflow = new HandoffBuilder({
      participants: [solo],
      state: { schema: Desk, initial: INITIAL },
    })
      .coordinator(solo)
      .build();
    const result = await workflow.run('go');
    const summary = result.messages.at(-2);
    expect(summary?.type).toBe('ToolCallSummaryMessage');
    expect(summary?.type === 'ToolCallSummaryMessage' && summary.results).toEqual([
      {
        callId: 'c1',
        name: 'escalate',
        content:
          'Tool "escalate" failed: Tool "escalate": updateState(): the new state is invalid at ' +
          'priority: Invalid option: expected one of "low"|"high"; the state is unchanged.',
        isError: true,
      },
    ]);
    expect(await workflow.session('default').state()).toEqual(INITIAL);
  });

  it("the app's invalid update is a ConfigError, and nothing is committed", async () => {
    const store = new MemoryCheckpointStore();
    const { workflow } = desk({ store });
    const session = workflow.session('app');
    await session.run('My invoice is wrong');
    const before = await session.checkpoints();
    const error = await session
      .updateState((draft) => {
        draft.priority = 'urgent';
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).path).toBe('state.priority');
    expect(await session.checkpoints()).toEqual(before);
    expect(await session.state()).toEqual(AFTER);
  });

  it('a recipe that throws rejects with its error and changes nothing', async () => {
    const { workflow } = desk();
    const session = workflow.session('t');
    const boom = new Error('recipe failed');
    await expect(
      session.updateState((draft) => {
        draft.verified = true;
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await session.state()).toEqual(INITIAL);
  });

  it('updates of concurrent calls: each sees its own; applied in call order; a throwing call has none', async () => {
    const seenBy: Record<string, unknown> = {};
    const setter = (name: string, fail: boolean) =>
      tool({
        name,
        parameters: z.object({}),
        execute: async (_args, ctx) => {
          ctx.updateState((draft) => {
            draft.priority = name === 'first' ? 'high' : 'low';
            draft.customerId = name;
          });
          await new Promise((r) => setTimeout(r, name === 'first' ? 20 : 1));
          seenBy[name] = ctx.state;
          if (fail) throw new Error(`${name} broke`);
          return 'ok';
        },
      });
    const client = new ScriptedChatClient([
      {
        toolCalls: [
          { id: 'a', name: 'first', arguments: '{}' },
          { id: 'b', name: 'second', arguments: '{}' },
          { id: 'c', name: 'third', arguments: '{}' },
        ],
      },
    ]);
    const solo = new Agent({
      name: 'solo',
      client,
      tools: [setter('first', false), setter('second', false), setter('third', true)],
    });
    const workflow = new HandoffBuilder({
      participants: [solo],
      state: { schema: Desk, initial: INITIAL },
    })
      .coordinator(solo)
      .build();
    await workflow.run('go');
    expect(seenBy).toEqual({
      first: { ...INITIAL, priority: 'high', customerId: 'first' },
      second: { ...INITIAL, priority: 'low', customerId: 'second' },
      third: { ...INITIAL, priority: 'low', customerId: 'third' },
    });
    // `first`'s patch then `second`'s (call order, not finishing order): `second` left the
    // priority as it found it, so its patch has no priority; `third` threw: discarded.
    expect(await workflow.session('default').state()).toEqual({
      ...INITIAL,
      priority: 'high',
      customerId: 'second',
    });
  });
});

describe('the application updates the state', () => {
  it('on a paused session: the pause stays, no message is added, the step is state_update', async () => {
    const store = new MemoryCheckpointStore();
    const { workflow, billingClient } = desk({ store });
    const session = workflow.session('pause');
    const first = await session.run('My invoice is wrong');
    const messages = await session.messages();
    await session.updateState((draft) => {
      draft.priority = 'high';
    });
    expect(await session.messages()).toEqual(messages);
    const info = await session.info();
    expect(info.status).toBe('awaiting_input');
    expect(info.pendingRequest).toEqual(first.pendingRequest);
    expect((await session.checkpoints()).at(-1)?.event).toBe('state_update');
    await session.run('INV-7');
    expect(seen(billingClient)[3]?.results).toEqual([
      JSON.stringify(AFTER),
      JSON.stringify({ ...AFTER, priority: 'high' }),
    ]);
  });

  it('rejects with SessionBusyError while the session runs', async () => {
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const slow = new Agent({
      name: 'slow',
      client: new ScriptedChatClient(async () => {
        await gate;
        return scriptedText('done');
      }),
    });
    const workflow = new HandoffBuilder({ participants: [slow] }).coordinator(slow).build();
    const session = workflow.session('busy');
    const running = session.run('go');
    await new Promise((r) => setTimeout(r, 10));
    await expect(session.updateState(() => {})).rejects.toBeInstanceOf(SessionBusyError);
    release();
    await running;
  });
});

const STORES: [string, OpenStores][] = [
  ['memory', openMemory],
  ['file', openFile],
  ['postgres', openPostgres],
  ['redis', openRedis],
];

describe.each(STORES)('on the %s store', (_name, open) => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('the state survives a restart in a new workflow object and a fork from an earlier step', async () => {
    const stores = await open();
    if (stores === undefined) return;
    closers.push(() => stores.close());
    const id = `state-${Math.random().toString(36).slice(2)}`;
    await desk({ store: stores.a }).workflow.session(id).run('My invoice is wrong');

    const restarted = desk({ store: stores.b });
    const session = restarted.workflow.session(id);
    expect(await session.state()).toEqual(AFTER);
    // The second billing turn of this new object: its instructions and tool see the state.
    const second = await session.run('INV-7');
    expect(second.status).toBe('awaiting_input');
    expect(seen(restarted.billingClient)[0]?.system).toBe(
      `The customer is C-42 (billing in ${id}).`,
    );
    // The first read is in the stored thread; the second is this object's tool.
    expect(seen(restarted.billingClient)[1]?.results).toEqual([
      JSON.stringify(AFTER),
      JSON.stringify(AFTER),
    ]);

    const steps = await session.checkpoints();
    expect(steps.map((s) => s.event)).toEqual([
      'user_input',
      'agent_response:triage',
      'agent_response:billing',
      'user_input',
      'agent_response:billing',
    ]);
    const early = restarted.workflow.session(`${id}-early`, { from: { session: id, step: 1 } });
    expect(await early.state()).toEqual(INITIAL);
    const late = restarted.workflow.session(`${id}-late`, { from: { session: id, step: 2 } });
    expect(await late.state()).toEqual(AFTER);
  });
});

describe('a "once" tool (API.md §17) and the state', () => {
  it('its update, made after the start commit, is committed with the turn and opens a guard in that turn', async () => {
    const verify = tool({
      name: 'verify_customer',
      effect: 'once',
      parameters: z.object({ customerId: z.string() }),
      execute: ({ customerId }, ctx) => {
        ctx.updateState((draft) => {
          draft.customerId = customerId;
          draft.verified = true;
        });
        return 'verified';
      },
    });
    const store = new MemoryCheckpointStore();
    const build = () => {
      const triage = new Agent({
        name: 'triage',
        client: new ScriptedChatClient([
          scriptedToolCall('verify_customer', { customerId: 'C-42' }),
          scriptedToolCall('handoff_to_billing'),
        ]),
        tools: [verify],
        maxToolIterations: 2,
      });
      const billing = new Agent({
        name: 'billing',
        client: new ScriptedChatClient([scriptedText('Which invoice?')]),
      });
      return new HandoffBuilder({
        participants: [triage, billing],
        state: { schema: Desk, initial: INITIAL },
      })
        .coordinator(triage)
        .addHandoff(triage, [billing], {
          when: function isVerified(state) {
            return state.verified === true;
          },
        })
        .withCheckpointing(store)
        .build();
    };
    const session = build().session('once');
    const result = await session.run('I was charged twice');
    expect(result.pendingRequest?.agent).toBe('billing');
    expect(await session.state()).toEqual(AFTER);
    expect((await session.checkpoints()).map((c) => c.event)).toEqual([
      'user_input',
      'tool_calls_started:triage',
      'agent_response:triage',
      'agent_response:billing',
    ]);
    // Committed, not only held: a new workflow object on the store loads it.
    expect(await build().session('once').state()).toEqual(AFTER);
  });
});

describe('teams and graphs take the same state option', () => {
  const bumper = () =>
    new Agent({
      name: 'worker',
      client: new ScriptedChatClient([scriptedToolCall('bump'), scriptedText('done')]),
      maxToolIterations: 2,
      tools: [
        tool({
          name: 'bump',
          parameters: z.object({}),
          execute: (_a, ctx) => {
            ctx.updateState((draft) => {
              draft.count = Number(draft.count) + 1;
            });
            return String(ctx.state.count);
          },
        }),
      ],
    });
  const state = { schema: z.object({ count: z.number() }), initial: { count: 41 } };

  it.each([
    ['RoundRobinGroupChat', () => new RoundRobinGroupChat([bumper()], { maxTurns: 1, state })],
    [
      'SelectorGroupChat',
      () => new SelectorGroupChat([bumper()], { maxTurns: 1, state, selectorFunc: () => 'worker' }),
    ],
    ['Swarm', () => new Swarm([bumper()], { maxTurns: 1, state })],
    ['GraphBuilder', () => new GraphBuilder({ state }).addNode(bumper()).build()],
  ])('%s', async (_name, make) => {
    const team = make();
    expect(await team.session('t').state()).toEqual({ count: 41 });
    await team.session('t').run('go');
    expect(await team.session('t').state()).toEqual({ count: 42 });
  });

  it('a team checks `initial` when it is made, a graph in build()', () => {
    const bad = { schema: z.object({ count: z.number() }), initial: { count: 'x' } };
    expect(() => new RoundRobinGroupChat([bumper()], { state: bad })).toThrow(
      'RoundRobinGroupChat: state.initial is invalid at count: Invalid input: expected number, received string. Give an initial value the schema accepts.',
    );
    const builder = new GraphBuilder({ state: bad }).addNode(bumper());
    expect(() => builder.build()).toThrow(ConfigError);
  });
});

describe('an update before any run', () => {
  it('opens the log of a stored session, and a new workflow object reads it back', async () => {
    const store = new MemoryCheckpointStore();
    await desk({ store })
      .workflow.session('first')
      .updateState((draft) => {
        draft.priority = 'high';
      });
    const again = desk({ store }).workflow.session('first');
    expect(await again.state()).toEqual({ ...INITIAL, priority: 'high' });
    expect((await again.checkpoints()).map((c) => c.event)).toEqual(['state_update']);
    const result = await again.run('My invoice is wrong');
    expect(result.status).toBe('awaiting_input');
    expect(await again.state()).toEqual({ ...AFTER, priority: 'high' });
  });
});
