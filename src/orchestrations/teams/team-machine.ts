import { type AnyStateMachine, setup } from 'xstate';

import type { ChatAgent } from '../../agents/chat-agent.js';
import type { MachineEvent } from '../../engine/orchestration.js';
import { ConfigError } from '../../errors.js';

/** Per participant: where an `agent_responded` event leads. */
export type SpeakerTransitions = (
  agent: string,
) => readonly { target: string; handoffTo?: string }[];

/**
 * Compiles a team's speaker graph into a flat statechart: a state per participant, `awaitingInput`
 * (a fresh session's entry), and `stopped`. User input enters at `replyTo` (the first speaker, or
 * where a stopped team left off); `resume` continues at a named state.
 */
export function compileTeamMachine(
  id: string,
  agents: readonly string[],
  transitions: SpeakerTransitions,
): AnyStateMachine {
  const entry = agents.map((agent) => ({
    target: agent,
    guard: { type: 'replyTo', params: { agent } },
  }));
  const states: Record<string, object> = {};
  for (const agent of agents) {
    states[agent] = {
      meta: { kind: 'agent', agent },
      on: {
        agent_responded: transitions(agent).map((t) =>
          t.handoffTo === undefined
            ? { target: t.target }
            : { target: t.target, guard: { type: 'handoffTo', params: { target: t.handoffTo } } },
        ),
      },
    };
  }
  states.awaitingInput = { meta: { kind: 'input' }, on: { user_replied: entry } };
  states.stopped = {
    meta: { kind: 'stopped' },
    on: {
      user_replied: entry,
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
      replyTo: ({ event }, params: Record<string, string>) =>
        event.type === 'user_replied' && event.replyTo === params.agent,
      resumeTo: ({ event }, params: Record<string, string>) =>
        event.type === 'resume' && event.to === params.to,
    },
  }).createMachine({
    id,
    initial: 'awaitingInput',
    on: { stop: '.stopped' },
    states,
  } as never) as unknown as AnyStateMachine;
}

/** Checks a team's participants: at least one, unique names, none named like a machine state. */
export function checkTeam(team: string, participants: readonly ChatAgent[]): string[] {
  if (!Array.isArray(participants) || participants.length === 0) {
    throw new ConfigError(`${team} needs at least one participant.`, { path: 'participants' });
  }
  const names: string[] = [];
  participants.forEach((agent, i) => {
    if (agent === null || typeof agent !== 'object' || typeof agent.respond !== 'function') {
      throw new ConfigError(
        `${team}: participants[${i}] is not an agent (an object with name and respond()).`,
        {
          path: `participants[${i}]`,
        },
      );
    }
    if (names.includes(agent.name)) {
      throw new ConfigError(
        `${team}: two participants are named "${agent.name}". Give every agent a unique name.`,
        {
          path: 'participants',
        },
      );
    }
    if (agent.name === 'awaitingInput' || agent.name === 'stopped') {
      throw new ConfigError(
        `${team}: a participant cannot be named "${agent.name}". Rename the agent.`,
        {
          path: 'participants',
        },
      );
    }
    names.push(agent.name);
  });
  return names;
}
