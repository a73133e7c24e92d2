import { type AnyStateMachine, setup } from 'xstate';

import type { MachineEvent } from '../../engine/orchestration.js';
import type { HandoffTopology } from './handoff-topology.js';

/** How a user reply is routed: to the coordinator, or back to the agent that asked. */
export type UserReplyRouting = 'coordinator' | 'last_agent';

type Transition = { target: string; guard?: { type: string; params: Record<string, string> } };

/**
 * Compiles a handoff topology into a flat statechart: a state per participant, `awaitingInput`
 * and `stopped`. Handoffs are transitions guarded by the target; the machine has no context, so
 * every transition is a pure function of (state, event).
 */
export function compileHandoffMachine(
  topology: HandoffTopology,
  routing: UserReplyRouting,
  autonomous: ReadonlySet<string>,
): AnyStateMachine {
  const agents = [...topology.participants.keys()];
  const userRoutes: Transition[] =
    routing === 'last_agent'
      ? agents.map((agent) => ({ target: agent, guard: { type: 'replyTo', params: { agent } } }))
      : [];
  userRoutes.push({ target: topology.coordinator });

  const states: Record<string, object> = {};
  for (const agent of agents) {
    const responded: Transition[] = (topology.targets.get(agent) ?? []).map((target) => ({
      target,
      guard: { type: 'handoffTo', params: { target } },
    }));
    if (autonomous.has(agent))
      responded.push({ target: agent, guard: { type: 'keepGoing', params: {} } });
    responded.push({ target: 'awaitingInput' });
    states[agent] = { meta: { kind: 'agent', agent }, on: { agent_responded: responded } };
  }
  states.awaitingInput = { meta: { kind: 'input', asks: true }, on: { user_replied: userRoutes } };
  states.stopped = {
    meta: { kind: 'stopped' },
    on: {
      user_replied: userRoutes,
      resume: [...agents, 'awaitingInput'].map((to) => ({
        target: to,
        guard: { type: 'resumeTo', params: { to } },
      })),
    },
  };

  return setup({
    types: { events: {} as MachineEvent },
    guards: {
      handoffTo: ({ event }, params: Record<string, string>) =>
        event.type === 'agent_responded' && event.handoffTo === params.target,
      keepGoing: ({ event }) => event.type === 'agent_responded' && event.keepGoing === true,
      replyTo: ({ event }, params: Record<string, string>) =>
        event.type === 'user_replied' && event.replyTo === params.agent,
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
