import type { AnyStateMachine } from 'xstate';

import type { ChatAgent } from '../../agents/chat-agent.js';
import { ConfigError } from '../../errors.js';
import {
  createFlatMachine,
  edge,
  type FlatState,
  RESERVED_STATES,
  stoppedState,
  type Transitions,
} from '../flat-machine.js';
import { checkParticipantName } from '../participant-name.js';

/**
 * The events of a team's machine: a response passes the turn on (`next`), hands off to a
 * participant (`handoff.<target>`) or outside the team (`leaves`), or keeps the floor (`continue`);
 * input is a `message` (selector teams) or resumes a participant (`reply.<agent>`).
 */
export type TeamEvent =
  | { readonly type: 'next' }
  | { readonly type: `handoff.${string}` }
  | { readonly type: 'leaves' }
  | { readonly type: 'continue' }
  | { readonly type: 'message' }
  | { readonly type: `reply.${string}` };

/** The shape of a team's statechart. */
export interface TeamMachineSpec {
  readonly id: string;
  readonly agents: readonly string[];
  /** Per participant, where each event of its responses leads. */
  readonly transitions: (agent: string) => Transitions<TeamEvent>;
  /** Add a `selecting` state where the team picks each next speaker (selector teams). */
  readonly selecting?: boolean;
}

/**
 * Compiles a team into a flat statechart: a state per participant, `awaitingInput` (a fresh
 * session's entry, and where a team waits after a handoff outside it), `stopped`, and for selector
 * teams `selecting`. Input enters at `reply.<agent>` (or at `selecting` on a `message`);
 * `resume.<state>` continues at a named state. Every transition is a pure function of (state,
 * event type).
 */
export function compileTeamMachine(spec: TeamMachineSpec): AnyStateMachine {
  const { agents } = spec;
  const entry: Transitions<TeamEvent> = {};
  if (spec.selecting) entry.message = edge('selecting', 'message');
  else for (const agent of agents) entry[`reply.${agent}`] = edge(agent, 'reply');
  const states: Record<string, FlatState<TeamEvent>> = {};
  for (const agent of agents) {
    states[agent] = { meta: { kind: 'agent', agent }, on: spec.transitions(agent) };
  }
  if (spec.selecting) {
    const on: Transitions<TeamEvent> = {};
    for (const agent of agents) on[`selected.${agent}`] = edge(agent, 'selects');
    states.selecting = { meta: { kind: 'select' }, on };
  }
  states.awaitingInput = { meta: { kind: 'input' }, on: entry };
  const resumable = [...agents, 'awaitingInput', ...(spec.selecting ? ['selecting'] : [])];
  states.stopped = stoppedState(entry, resumable);
  return createFlatMachine(spec.id, states);
}

/** Checks a team's participants: at least one, unique names, none named like a machine state. */
export function checkTeam(team: string, participants: readonly ChatAgent[]): [string, ...string[]] {
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
    checkParticipantName(team, agent.name, `participants[${i}].name`);
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
  const [first, ...rest] = names;
  if (first === undefined) throw new Error(`${team}: no participant was checked.`);
  return [first, ...rest];
}
