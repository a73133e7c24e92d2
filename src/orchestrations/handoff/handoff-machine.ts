import { type AnyStateMachine, setup } from 'xstate';

import type { MachineEvent } from '../../engine/orchestration.js';
import { ROUTER_STATE, type Router } from './handoff-router.js';
import type { HandoffTopology } from './handoff-topology.js';

/** How a user reply is routed: to the coordinator, back to the agent that asked, or lazily. */
export type UserReplyRouting = 'coordinator' | 'last_agent' | 'lazy';

type Transition = { target: string; guard?: { type: string; params: Record<string, string> } };

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
  const userRoutes: Transition[] =
    spec.routing === 'coordinator'
      ? []
      : agents.map((agent) => ({ target: agent, guard: { type: 'replyTo', params: { agent } } }));
  userRoutes.push({ target: entry });

  const states: Record<string, object> = {};
  for (const agent of agents) {
    const responded: Transition[] = (topology.targets.get(agent) ?? []).map((target) => ({
      target,
      guard: { type: 'handoffTo', params: { target } },
    }));
    if (spec.autonomous.has(agent)) {
      responded.push({ target: agent, guard: { type: 'keepGoing', params: {} } });
    }
    if (spec.routing === 'lazy')
      responded.push({ target: ROUTER_STATE, guard: { type: 'reroute', params: {} } });
    responded.push({ target: 'awaitingInput' });
    states[agent] = { meta: { kind: 'agent', agent }, on: { agent_responded: responded } };
  }
  if (router !== undefined) {
    const routerAgent = router.kind === 'function' ? undefined : router.agent.name;
    const targets = agents.filter((a) => a !== routerAgent);
    states[ROUTER_STATE] =
      router.kind === 'function'
        ? {
            meta: { kind: 'select' },
            on: {
              speaker_selected: agents.map((agent) => ({
                target: agent,
                guard: { type: 'selected', params: { agent } },
              })),
            },
          }
        : {
            meta: { kind: 'agent', agent: routerAgent, router: true },
            on: {
              agent_responded: [
                ...targets.map((target) => ({
                  target,
                  guard: { type: 'handoffTo', params: { target } },
                })),
                { target: 'awaitingInput' },
              ],
            },
          };
  }
  states.awaitingInput = { meta: { kind: 'input', asks: true }, on: { user_replied: userRoutes } };
  const resumable = [...agents, 'awaitingInput', ...(router === undefined ? [] : [ROUTER_STATE])];
  states.stopped = {
    meta: { kind: 'stopped' },
    on: {
      user_replied: userRoutes,
      resume: resumable.map((to) => ({ target: to, guard: { type: 'resumeTo', params: { to } } })),
    },
  };

  return setup({
    types: { events: {} as MachineEvent },
    guards: {
      handoffTo: ({ event }, params: Record<string, string>) =>
        event.type === 'agent_responded' && event.handoffTo === params.target,
      keepGoing: ({ event }) => event.type === 'agent_responded' && event.keepGoing === true,
      reroute: ({ event }) => event.type === 'agent_responded' && event.reroute === true,
      replyTo: ({ event }, params: Record<string, string>) =>
        event.type === 'user_replied' && event.replyTo === params.agent,
      selected: ({ event }, params: Record<string, string>) =>
        event.type === 'speaker_selected' && event.agent === params.agent,
      resumeTo: ({ event }, params: Record<string, string>) =>
        event.type === 'resume' && event.to === params.to,
    },
  }).createMachine({
    id: topology.name,
    initial: 'awaitingInput',
    on: { stop: '.stopped' },
    states,
  } as never) as unknown as AnyStateMachine;
}
