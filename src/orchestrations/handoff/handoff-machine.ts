import type { AnyStateMachine } from 'xstate';

import { createFlatMachine, type FlatTransition, stoppedState } from '../flat-machine.js';
import { ROUTER_STATE, type Router } from './handoff-router.js';
import type { HandoffTopology } from './handoff-topology.js';

/** How a user reply is routed: to the coordinator, back to the agent that asked, or lazily. */
export type UserReplyRouting = 'coordinator' | 'last_agent' | 'lazy';

type Transition = FlatTransition;

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
              // The classifier chose someone who declined this user turn: the user is asked.
              user_asked: { target: 'awaitingInput' },
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
  states.stopped = stoppedState(userRoutes, resumable);
  return createFlatMachine(topology.name, states);
}
