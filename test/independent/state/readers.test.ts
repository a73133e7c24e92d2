// Independent suite for API.md §18: guardrails (`check({..., state})`) and selector functions
// (`selectorFunc(messages, { state })`) read the state. Written from API.md alone. Readings where
// the page is open:
// - an input guardrail sees the state as the run starts; an output guardrail sees it with the
//   updates made earlier in that agent's turn (they are applied when their batch ends).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  type AgentMessage,
  guardrail,
  HandoffBuilder,
  MaxMessageTermination,
  RoundRobinGroupChat,
  ScriptedChatClient,
  SelectorGroupChat,
  tool,
} from '../../../src/index.js';
import { call, ctxOf, deepFrozen, Desk, type DeskState, INITIAL, stateOf } from './support.js';

describe('guardrails read the state (API.md §18, §10)', () => {
  it('input and output guardrails get `state`; a tripwire can depend on it', async () => {
    const seen: { kind: string; agent: string | null; state: unknown }[] = [];
    const watch = (kind: string) =>
      guardrail({
        name: `watch_${kind}`,
        check: (input) => {
          const { agent, state } = input as typeof input & { state: unknown };
          seen.push({ kind, agent, state });
          return { tripwire: false };
        },
      });
    const verify = tool({
      name: 'verify',
      description: 'Verifies.',
      parameters: z.object({}),
      execute: async (_args, raw) => {
        ctxOf(raw).updateState((draft: DeskState) => {
          draft.verified = true;
        });
        return 'ok';
      },
    });
    const clerk = new Agent({
      name: 'clerk',
      tools: [verify],
      maxToolIterations: 2,
      client: new ScriptedChatClient((request) =>
        (request.messages as { role: string }[]).at(-1)?.role === 'tool'
          ? { content: 'verified now' }
          : { content: null, toolCalls: [call('verify')] },
      ),
    });
    const blockUnverified = guardrail({
      name: 'needs_verified',
      check: (input) => {
        const state = (input as typeof input & { state: DeskState }).state;
        return state.verified ? { tripwire: false } : { tripwire: true, info: 'not verified' };
      },
    });
    const workflow = new HandoffBuilder({
      name: 'guarded',
      participants: [clerk],
      state: { schema: Desk, initial: INITIAL },
    } as ConstructorParameters<typeof HandoffBuilder>[0])
      .coordinator(clerk)
      .withGuardrails({ input: [watch('input')], output: [watch('output'), blockUnverified] })
      .build();
    const session = workflow.session('guards');
    await stateOf(session).updateState((draft: DeskState) => {
      draft.customerId = 'C-3';
    });
    const result = await session.run('hello');
    expect(result.status).toBe('awaiting_input');
    expect(result.pendingRequest!.prompt).toBe('verified now');
    expect(seen).toEqual([
      { kind: 'input', agent: null, state: { ...INITIAL, customerId: 'C-3' } },
      {
        kind: 'output',
        agent: 'clerk',
        state: { customerId: 'C-3', verified: true, priority: 'low' },
      },
    ]);
    for (const s of seen) expect(deepFrozen(s.state)).toBe(true);
  });

  it('an output guardrail trips on the state: stopReason names it', async () => {
    const clerk = new Agent({
      name: 'clerk',
      client: new ScriptedChatClient(() => ({ content: 'an answer' })),
    });
    const blockUnverified = guardrail({
      name: 'needs_verified',
      check: (input) =>
        (input as typeof input & { state: DeskState }).state.verified
          ? { tripwire: false }
          : { tripwire: true, info: 'not verified' },
    });
    const workflow = new HandoffBuilder({
      name: 'guarded2',
      participants: [clerk],
      state: { schema: Desk, initial: INITIAL },
    } as ConstructorParameters<typeof HandoffBuilder>[0])
      .coordinator(clerk)
      .withGuardrails({ output: [blockUnverified] })
      .build();
    const session = workflow.session('trip');
    const tripped = await session.run('hello');
    expect(tripped.status).toBe('terminated');
    expect(tripped.stopReason).toBe('Guardrail "needs_verified" tripped: not verified');
    await stateOf(session).updateState((draft: DeskState) => {
      draft.verified = true;
    });
    const passed = await session.run('again');
    expect(passed.status).toBe('awaiting_input');
    expect(passed.pendingRequest!.prompt).toBe('an answer');
  });
});

describe('selector functions read the state (API.md §18, §5)', () => {
  it('selectorFunc(messages, { state }) sees the state after each turn and routes on it', async () => {
    const Route = z.object({ next: z.string(), turns: z.number() });
    type RouteState = z.infer<typeof Route>;
    const route = tool({
      name: 'route',
      description: 'Says who speaks next.',
      parameters: z.object({ next: z.string() }),
      execute: async ({ next }, raw) => {
        ctxOf(raw).updateState((draft: RouteState) => {
          draft.next = next;
          draft.turns += 1;
        });
        return `next is ${next}`;
      },
    });
    const speaker = (name: string, next: string) =>
      new Agent({
        name,
        tools: [route],
        maxToolIterations: 2,
        client: new ScriptedChatClient((request) =>
          (request.messages as { role: string }[]).at(-1)?.role === 'tool'
            ? { content: `${name} spoke` }
            : { content: null, toolCalls: [call('route', { next })] },
        ),
      });
    const seen: { count: number; state: unknown }[] = [];
    const team = new SelectorGroupChat([speaker('a', 'c'), speaker('b', 'a'), speaker('c', 'b')], {
      selectorFunc: ((messages: readonly AgentMessage[], extra: { state: RouteState }) => {
        seen.push({ count: messages.length, state: extra.state });
        return extra.state.next;
      }) as never,
      terminationCondition: new MaxMessageTermination(4),
      allowRepeatedSpeaker: true,
      state: { schema: Route, initial: { next: 'b', turns: 0 } },
    } as ConstructorParameters<typeof SelectorGroupChat>[1]);
    const session = team.session('selector');
    const result = await session.run('start');
    expect(
      result.messages
        .filter((m) => m.type === 'TextMessage')
        .map((m) => (m as { content: string }).content),
    ).toEqual(['start', 'b spoke', 'a spoke', 'c spoke']);
    expect(seen.map((s) => s.state)).toEqual([
      { next: 'b', turns: 0 },
      { next: 'a', turns: 1 },
      { next: 'c', turns: 2 },
    ]);
    for (const s of seen) expect(deepFrozen(s.state)).toBe(true);
    expect(await stateOf(session).state()).toEqual({ next: 'b', turns: 3 });
  });

  it('a RoundRobinGroupChat tool update is visible to the next speaker’s tool', async () => {
    const Log = z.object({ log: z.array(z.string()) });
    const seenByTool: unknown[] = [];
    const append = tool({
      name: 'append',
      description: 'Appends the agent name.',
      parameters: z.object({}),
      execute: async (_args, raw) => {
        const ctx = ctxOf(raw);
        seenByTool.push(ctx.state);
        ctx.updateState((draft: { log: string[] }) => {
          draft.log.push(ctx.agent);
        });
        return 'ok';
      },
    });
    const agent = (name: string) =>
      new Agent({
        name,
        tools: [append],
        maxToolIterations: 2,
        client: new ScriptedChatClient((request) =>
          (request.messages as { role: string }[]).at(-1)?.role === 'tool'
            ? { content: `${name} done` }
            : { content: null, toolCalls: [call('append')] },
        ),
      });
    const team = new RoundRobinGroupChat([agent('x'), agent('y')], {
      maxTurns: 3,
      state: { schema: Log, initial: { log: [] } },
    } as ConstructorParameters<typeof RoundRobinGroupChat>[1]);
    const session = team.session('rr-log');
    await session.run('go');
    expect(seenByTool).toEqual([{ log: [] }, { log: ['x'] }, { log: ['x', 'y'] }]);
    expect(await stateOf(session).state()).toEqual({ log: ['x', 'y', 'x'] });
  });
});
