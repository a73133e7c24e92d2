import type { AnyStateMachine } from 'xstate';

import {
  guardedEdge,
  type StateGuard,
  createFlatMachine,
  edge,
  type FlatState,
  stoppedState,
  type Transitions,
} from '../flat-machine.js';
import { ROUTER_STATE, type Router } from './handoff-router.js';
import type { HandoffTopology } from './handoff-topology.js';

/** How a user reply is routed: to the coordinator, back to the agent that asked, or lazily. */
export type UserReplyRouting = 'coordinator' | 'last_agent' | 'lazy';

/**
 * The events of a handoff workflow's machine. An agent's response hands off (`handoff.<target>`),
 * keeps the floor (`continue`, autonomous agents), goes back to be routed again (`reroute`, lazy
 * routing) or asks the user (`asks_user`); user input is a new `message` or a `reply.<agent>`.
 */
export type HandoffEvent =
  | { readonly type: `handoff.${string}` }
  | { readonly type: 'continue' }
  | { readonly type: 'reroute' }
  | { readonly type: 'asks_user' }
  | { readonly type: 'message' }
  | { readonly type: `reply.${string}` };

/** The event of each handoff target so far: made once per target (events are never changed). */
const handoffEvents = new Map<string, HandoffEvent>();

/** The event for a response that hands off to `target`. */
export function handoffEvent(target: string): HandoffEvent {
  let event = handoffEvents.get(target);
  if (event === undefined) {
    event = Object.freeze({ type: `handoff.${target}` });
    // Targets are participants' names, a handful per workflow; the bound keeps a process that
    // builds many workflows from holding every name it has seen.
    if (handoffEvents.size >= 1024) handoffEvents.clear();
    handoffEvents.set(target, event);
  }
  return event;
}

/** The event for user input that answers `agent`. */
export function replyEvent(agent: string): HandoffEvent {
  return { type: `reply.${agent}` };
}

/** What the machine is compiled from, besides the topology. */
export interface HandoffMachineSpec {
  readonly routing: UserReplyRouting;
  readonly autonomous: ReadonlySet<string>;
  /** The router of the `classifying` state (lazy routing or a resolver), if any. */
  readonly router: Router | undefined;
}

/**
 * Compiles a handoff topology into a flat statechart: a state per participant, `awaitingInput`,
 * `stopped`, and `classifying` when requests are routed by a classifier or resolver. Handoffs are
 * transitions guarded by the target; the machine has no context, so every transition is a pure
 * function of (state, event).
 */
export function compileHandoffMachine(
  topology: HandoffTopology,
  spec: HandoffMachineSpec,
): AnyStateMachine {
  const agents = [...topology.participants.keys()];
  const router = spec.router;
  const entry = router === undefined ? topology.coordinator : ROUTER_STATE;
  const userRoutes: Transitions<HandoffEvent> = {};
  if (spec.routing !== 'coordinator') {
    for (const agent of agents) userRoutes[`reply.${agent}`] = edge(agent, 'reply');
  }
  userRoutes.message = edge(entry, 'message');

  const states: Record<string, FlatState<HandoffEvent>> = {};
  for (const agent of agents) {
    const on: Transitions<HandoffEvent> = {};
    const guards = topology.guards.get(agent);
    for (const target of topology.targets.get(agent) ?? []) {
      on[`handoff.${target}`] = guardedEdge(edge(target, 'handoff'), guards?.get(target)?.name);
    }
    if (spec.autonomous.has(agent)) on.continue = edge(agent, 'continues');
    if (spec.routing === 'lazy') on.reroute = edge(ROUTER_STATE, 'reroute');
    on.asks_user = edge('awaitingInput', 'asks');
    states[agent] = { meta: { kind: 'agent', agent }, on };
  }
  if (router !== undefined) states[ROUTER_STATE] = routerState(router, agents);
  states.awaitingInput = { meta: { kind: 'input', asks: true }, on: userRoutes };
  const resumable = [...agents, 'awaitingInput', ...(router === undefined ? [] : [ROUTER_STATE])];
  states.stopped = stoppedState(userRoutes, resumable);
  const guards: Record<string, StateGuard> = {};
  for (const byTarget of topology.guards.values()) {
    for (const { name, test } of byTarget.values()) guards[name] = test;
  }
  return createFlatMachine(topology.name, states, guards);
}

/**
 * The `classifying` state: a classifier function selects an agent (or gives the floor back to the
 * user); a classifier agent answers with a handoff, or asks the user itself.
 */
function routerState(router: Router, agents: readonly string[]): FlatState<HandoffEvent> {
  if (router.kind === 'function') {
    const on: Transitions<HandoffEvent> = {};
    for (const agent of agents) on[`selected.${agent}`] = edge(agent, 'selects');
    // The classifier chose someone who declined this user turn: the user is asked.
    on.user_asked = edge('awaitingInput', 'asks');
    return { meta: { kind: 'select' }, on };
  }
  const routerAgent = router.agent.name;
  const on: Transitions<HandoffEvent> = {};
  for (const target of agents.filter((a) => a !== routerAgent)) {
    on[`handoff.${target}`] = edge(target, 'handoff');
  }
  on.asks_user = edge('awaitingInput', 'asks');
  return { meta: { kind: 'agent', agent: routerAgent, router: true }, on };
}
