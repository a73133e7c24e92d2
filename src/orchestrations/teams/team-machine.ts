import type { AnyStateMachine } from 'xstate';

import type { ChatAgent } from '../../agents/chat-agent.js';
import { ConfigError } from '../../errors.js';
import {
  createFlatMachine,
  type FlatTransition,
  RESERVED_STATES,
  stoppedState,
} from '../flat-machine.js';

/** Where an `agent_responded` event leads, and on which condition (first match wins). */
export interface SpeakerTransition {
  readonly target: string;
  /** Only when the response hands off to this participant. */
  readonly handoffTo?: string;
  /** Only when the response hands off outside the team. */
  readonly leavesTeam?: boolean;
}

/** The shape of a team's statechart. */
export interface TeamMachineSpec {
  readonly id: string;
  readonly agents: readonly string[];
  /** Per participant, where its responses lead. */
  readonly transitions: (agent: string) => readonly SpeakerTransition[];
  /** Add a `selecting` state where the team picks each next speaker (selector teams). */
  readonly selecting?: boolean;
}

/**
 * Compiles a team into a flat statechart: a state per participant, `awaitingInput` (a fresh
 * session's entry, and where a team waits after a handoff outside it), `stopped`, and for selector
 * teams `selecting`. Input enters at `replyTo` (or at `selecting`); `resume` continues at a named
 * state. The machine has no context: every transition is a pure function of (state, event).
 */
export function compileTeamMachine(spec: TeamMachineSpec): AnyStateMachine {
  const { agents } = spec;
  const entry: FlatTransition[] = spec.selecting
    ? [{ target: 'selecting' }]
    : agents.map((agent) => ({ target: agent, guard: { type: 'replyTo', params: { agent } } }));
  const states: Record<string, object> = {};
  for (const agent of agents) {
    states[agent] = {
      meta: { kind: 'agent', agent },
      on: {
        agent_responded: spec.transitions(agent).map((t) => {
          if (t.handoffTo !== undefined) {
            return {
              target: t.target,
              guard: { type: 'handoffTo', params: { target: t.handoffTo } },
            };
          }
          if (t.leavesTeam === true)
            return { target: t.target, guard: { type: 'leavesTeam', params: {} } };
          return { target: t.target };
        }),
      },
    };
  }
  if (spec.selecting) {
    states.selecting = {
      meta: { kind: 'select' },
      on: {
        speaker_selected: agents.map((agent) => ({
          target: agent,
          guard: { type: 'selected', params: { agent } },
        })),
      },
    };
  }
  states.awaitingInput = { meta: { kind: 'input' }, on: { user_replied: entry } };
  const resumable = [...agents, 'awaitingInput', ...(spec.selecting ? ['selecting'] : [])];
  states.stopped = stoppedState(entry, resumable);
  return createFlatMachine(spec.id, states);
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
        { path: `participants[${i}]` },
      );
    }
    if (names.includes(agent.name)) {
      throw new ConfigError(
        `${team}: two participants are named "${agent.name}". Give every agent a unique name.`,
        { path: 'participants' },
      );
    }
    if (RESERVED_STATES.has(agent.name)) {
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
