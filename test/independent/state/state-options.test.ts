// Independent suite for API.md §18 (conversation state): the `state` option of HandoffBuilder, the
// teams and GraphBuilder; `initial` checked by build(); the `{}` default; session.state() and
// info(). Written from API.md alone. Readings where the page is open:
// - a team has no build(): its constructor checks `initial` (the team is built when constructed);
// - the ConfigError for a bad `initial` names the failing field in its message.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  ConfigError,
  GraphBuilder,
  HandoffBuilder,
  MaxMessageTermination,
  MemoryCheckpointStore,
  RoundRobinGroupChat,
  ScriptedChatClient,
  Swarm,
  tool,
} from '../../../src/index.js';
import { call, ctxOf, deepFrozen, desk, Desk, INITIAL, stateOf, systemText } from './support.js';

const Counter = z.object({ count: z.number().int(), notes: z.array(z.string()) });
type CounterState = z.infer<typeof Counter>;

/** `a` calls `bump` (count + 1, notes + "a") then answers `a done`; `b` answers its instructions. */
function counterAgents() {
  const bump = tool({
    name: 'bump',
    description: 'Counts.',
    parameters: z.object({}),
    execute: async (_args, ctx) => {
      ctxOf(ctx).updateState((draft: CounterState) => {
        draft.count += 1;
        draft.notes.push(ctxOf(ctx).agent);
      });
      return 'bumped';
    },
  });
  const a = new Agent({
    name: 'a',
    tools: [bump],
    maxToolIterations: 2,
    client: new ScriptedChatClient((request) =>
      (request.messages as { role: string }[]).at(-1)?.role === 'tool'
        ? { content: 'a done' }
        : { content: null, toolCalls: [call('bump')] },
    ),
  });
  const bClient = new ScriptedChatClient((request) => ({
    content: `b sees: ${systemText(request) ?? 'no instructions'}`,
  }));
  const b = new Agent({
    name: 'b',
    instructions: (ctx: { state: unknown }) => `count=${(ctx.state as CounterState).count}`,
    client: bClient,
  } as ConstructorParameters<typeof Agent>[0]);
  return { a, b, bClient };
}

describe('the state option (API.md §18)', () => {
  it('HandoffBuilder: build() throws ConfigError naming the field when `initial` fails the schema', () => {
    const build = () =>
      desk({ initial: { customerId: null, verified: 'yes', priority: 'low' } }).workflow;
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/verified/);
    const build2 = () =>
      desk({ initial: { customerId: null, verified: false, priority: 'urgent' } }).workflow;
    expect(build2).toThrow(ConfigError);
    expect(build2).toThrow(/priority/);
  });

  it('GraphBuilder: build() throws ConfigError for an invalid initial', () => {
    const { a, b } = counterAgents();
    const build = () =>
      new GraphBuilder({
        name: 'g',
        state: { schema: Counter, initial: { count: 'one', notes: [] } },
      } as ConstructorParameters<typeof GraphBuilder>[0])
        .addNode(a)
        .addNode(b)
        .addEdge(a, b)
        .build();
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/count/);
  });

  it('teams: an invalid initial is a ConfigError naming the field', () => {
    const { a, b } = counterAgents();
    const options = { state: { schema: Counter, initial: { count: 0, notes: [7] } } };
    expect(
      () =>
        new RoundRobinGroupChat(
          [a, b],
          options as ConstructorParameters<typeof RoundRobinGroupChat>[1],
        ),
    ).toThrow(ConfigError);
    expect(
      () =>
        new RoundRobinGroupChat(
          [a, b],
          options as ConstructorParameters<typeof RoundRobinGroupChat>[1],
        ),
    ).toThrow(/notes/);
    expect(() => new Swarm([a, b], options as ConstructorParameters<typeof Swarm>[1])).toThrow(
      ConfigError,
    );
  });

  it('without a state option the state is {} and any JSON object is accepted', async () => {
    const { workflow } = desk({ noState: true, store: new MemoryCheckpointStore() });
    const session = workflow.session('no-state');
    expect(await stateOf(session).state()).toEqual({});
    await stateOf(session).updateState((draft: Record<string, unknown>) => {
      draft.anything = { nested: [1, 'two', null, true], deep: { x: 1.5 } };
      draft.flag = false;
    });
    const expected = {
      anything: { nested: [1, 'two', null, true], deep: { x: 1.5 } },
      flag: false,
    };
    expect(await stateOf(session).state()).toEqual(expected);
    expect((await session.info()).state).toEqual(expected);
    // The run carries it: billing's instructions read it.
    const result = await session.run('hello');
    expect(result.status).toBe('awaiting_input');
    expect(await stateOf(session).state()).toEqual(expected);
  });

  it('without a schema, a value that is not JSON is a ConfigError naming the field; nothing changes', async () => {
    const { workflow } = desk({ noState: true, store: new MemoryCheckpointStore() });
    const session = workflow.session('not-json');
    await stateOf(session).updateState((draft: Record<string, unknown>) => {
      draft.kept = 1;
    });
    const cases: [string, (draft: Record<string, unknown>) => void][] = [
      ['fn', (draft) => void (draft.fn = () => 1)],
      ['when', (draft) => void (draft.when = new Date(0))],
      ['nan', (draft) => void (draft.nan = Number.NaN)],
      ['big', (draft) => void (draft.big = BigInt(1))],
    ];
    for (const [field, recipe] of cases) {
      const error = await stateOf(session)
        .updateState(recipe)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error, field).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(field);
    }
    expect(await stateOf(session).state()).toEqual({ kept: 1 });
  });

  it('HandoffBuilder: the initial state before any run, in state() and info()', async () => {
    const { workflow } = desk();
    const session = workflow.session('fresh');
    expect(await stateOf(session).state()).toEqual(INITIAL);
    expect((await session.info()).state).toEqual(INITIAL);
  });

  it('session.state() is a deep-frozen copy; the session keeps its own value', async () => {
    const { workflow } = desk({
      schema: Desk.extend({ tags: z.array(z.string()) }),
      initial: { ...INITIAL, tags: ['a'] },
    });
    const session = workflow.session('frozen');
    const state = (await stateOf(session).state()) as { tags: string[] };
    expect(deepFrozen(state)).toBe(true);
    expect(Object.isFrozen(state.tags)).toBe(true);
    expect(() => state.tags.push('b')).toThrow(TypeError); // ESM code is strict
    expect(await stateOf(session).state()).toEqual({ ...INITIAL, tags: ['a'] });
  });

  it('RoundRobinGroupChat: a tool update is seen by the next agent and by state()/info()', async () => {
    const { a, b, bClient } = counterAgents();
    const team = new RoundRobinGroupChat([a, b], {
      terminationCondition: new MaxMessageTermination(3),
      state: { schema: Counter, initial: { count: 0, notes: [] } },
    } as ConstructorParameters<typeof RoundRobinGroupChat>[1]);
    const session = team.session('rr');
    const result = await session.run('go');
    expect(result.status).toBe('terminated');
    expect(
      result.messages
        .filter((m) => m.type === 'TextMessage' || m.type === 'ToolCallSummaryMessage')
        .map((m) => `${m.source}: ${(m as { content: string }).content}`),
    ).toEqual(['user: go', 'a: a done', 'b: b sees: count=1']);
    expect(systemText(bClient.calls[0]!)).toBe('count=1');
    expect(await stateOf(session).state()).toEqual({ count: 1, notes: ['a'] });
    expect((await session.info()).state).toEqual({ count: 1, notes: ['a'] });
  });

  it('GraphBuilder: the state option carries a node tool update to the next node', async () => {
    const { a, b } = counterAgents();
    const flow = new GraphBuilder({
      name: 'counting',
      state: { schema: Counter, initial: { count: 10, notes: ['start'] } },
    } as ConstructorParameters<typeof GraphBuilder>[0])
      .addNode(a)
      .addNode(b)
      .addEdge(a, b)
      .build();
    const session = flow.session('graph');
    const result = await session.run('go');
    expect(result.stopReason).toBe('Digraph execution is complete');
    expect(
      result.messages
        .filter((m) => m.type === 'TextMessage')
        .map((m) => `${m.source}: ${(m as { content: string }).content}`),
    ).toEqual(['user: go', 'a: a done', 'b: b sees: count=11']);
    expect(await stateOf(session).state()).toEqual({ count: 11, notes: ['start', 'a'] });
  });

  it('Swarm: the state option is carried across a handoff', async () => {
    const { b, bClient } = counterAgents();
    const bump = tool({
      name: 'bump',
      description: 'Counts.',
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        ctxOf(ctx).updateState((draft: CounterState) => {
          draft.count += 5;
        });
        return 'bumped';
      },
    });
    const first = new Agent({
      name: 'first',
      tools: [bump],
      handoffs: ['b'],
      maxToolIterations: 2,
      client: new ScriptedChatClient([
        { content: null, toolCalls: [call('bump')] },
        { content: null, toolCalls: [call('handoff_to_b')] },
      ]),
    });
    const swarm = new Swarm([first, b], {
      terminationCondition: new MaxMessageTermination(10),
      maxTurns: 2,
      state: { schema: Counter, initial: { count: 0, notes: [] } },
    } as ConstructorParameters<typeof Swarm>[1]);
    const session = swarm.session('swarm');
    const result = await session.run('go');
    expect(result.stopReason).toBe('Maximum number of turns 2 reached.');
    expect(systemText(bClient.calls[0]!)).toBe('count=5');
    expect(await stateOf(session).state()).toEqual({ count: 5, notes: [] });
  });

  it('rejects a state option whose schema is not a zod type or whose initial is missing', () => {
    const { a } = counterAgents();
    expect(() =>
      new HandoffBuilder({
        participants: [a],
        state: { schema: Counter, initial: undefined },
      } as unknown as ConstructorParameters<typeof HandoffBuilder>[0])
        .coordinator(a)
        .build(),
    ).toThrow(ConfigError);
  });

  it('a team and a graph with a checkpoint store: a new object resumes the state; forks see earlier state', async () => {
    const store = new MemoryCheckpointStore();
    const team = () => {
      const { a, b } = counterAgents();
      return new RoundRobinGroupChat([a, b], {
        maxTurns: 2,
        checkpointStore: store,
        state: { schema: Counter, initial: { count: 0, notes: [] } },
      } as ConstructorParameters<typeof RoundRobinGroupChat>[1]);
    };
    await team().session('team-store').run('go');
    const later = team();
    expect(await stateOf(later.session('team-store')).state()).toEqual({ count: 1, notes: ['a'] });
    const steps = await later.session('team-store').checkpoints();
    const input = steps.find((c) => c.event === 'user_input')!.step;
    const fork = later.session('team-fork', { from: { session: 'team-store', step: input } });
    expect(await stateOf(fork).state()).toEqual({ count: 0, notes: [] });

    const graph = () => {
      const { a, b } = counterAgents();
      return new GraphBuilder({
        name: 'stored-graph',
        state: { schema: Counter, initial: { count: 0, notes: [] } },
      } as ConstructorParameters<typeof GraphBuilder>[0])
        .addNode(a)
        .addNode(b)
        .addEdge(a, b)
        .withCheckpointing(store)
        .build();
    };
    await graph().session('graph-store').run('go');
    expect(await stateOf(graph().session('graph-store')).state()).toEqual({
      count: 1,
      notes: ['a'],
    });
  });
});
