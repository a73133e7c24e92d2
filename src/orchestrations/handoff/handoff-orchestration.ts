import type { AgentResponse } from '../../agents/chat-agent.js';
import type {
  AgentTurnOptions,
  MachineEvent,
  Orchestration,
  ResponseRouting,
} from '../../engine/orchestration.js';
import type { SessionState } from '../../engine/session-state.js';
import type { StopRule } from '../../engine/stop-rule.js';
import { textMessage } from '../../messages/message-factories.js';
import { compileHandoffMachine, type UserReplyRouting } from './handoff-machine.js';
import type { HandoffTopology } from './handoff-topology.js';

/** The `metadata` key marking the prompt an autonomous agent receives instead of a user reply. */
export const AUTONOMOUS_PROMPT_KEY = 'batonAutonomousPrompt';

/** Options of `withAutonomousMode`, resolved. */
export interface AutonomousSettings {
  readonly agents: ReadonlySet<string>;
  readonly turnLimits: Readonly<Record<string, number>>;
  readonly prompt: string;
}

/** Everything `build()` resolved, ready to compile. */
export interface HandoffSettings {
  readonly topology: HandoffTopology;
  readonly routing: UserReplyRouting;
  readonly toolCallFilter: 'handoff' | 'all' | 'none';
  readonly contextWindow: number | undefined;
  readonly maxTurns: number;
  readonly autonomous: AutonomousSettings;
  readonly stopRule: StopRule | undefined;
}

/** Compiles `HandoffBuilder` settings into the engine's orchestration. */
export function compileHandoff(settings: HandoffSettings): Orchestration {
  const { topology, autonomous } = settings;
  const machine = compileHandoffMachine(topology, settings.routing, autonomous.agents);
  const turnOptions = new Map<string, AgentTurnOptions>();
  for (const name of topology.participants.keys()) {
    turnOptions.set(name, {
      handoffs: topology.handoffs.get(name) ?? [],
      toolCallFilter: settings.toolCallFilter,
      ...(settings.contextWindow === undefined ? {} : { contextWindow: settings.contextWindow }),
    });
  }

  const routeResponse = (
    agent: string,
    response: AgentResponse,
    state: SessionState,
  ): ResponseRouting => {
    const message = response.chatMessage;
    if (message.type === 'HandoffMessage' && message.target !== 'user') {
      const allowed = topology.targets.get(agent) ?? [];
      if (!allowed.includes(message.target)) {
        throw new Error(
          `Agent "${agent}" handed off to "${message.target}", which workflow "${topology.name}" ` +
            `does not allow. Allowed targets of "${agent}": ${allowed.map((t) => `"${t}"`).join(', ') || 'none'}. ` +
            'Add the edge with addHandoff() or fix the agent.',
        );
      }
      return { event: { type: 'agent_responded', handoffTo: message.target } };
    }
    if (message.type !== 'HandoffMessage' && autonomous.agents.has(agent)) {
      const limit = autonomous.turnLimits[agent] ?? 10;
      if (answersInARow(state, agent) + 1 < limit) {
        const prompt = textMessage({
          source: 'user',
          content: autonomous.prompt,
          metadata: { [AUTONOMOUS_PROMPT_KEY]: true },
        });
        return { event: { type: 'agent_responded', keepGoing: true }, followUp: [prompt] };
      }
    }
    return { event: { type: 'agent_responded' } };
  };

  const routeUserInput = (state: SessionState): MachineEvent => {
    if (settings.routing === 'coordinator') return { type: 'user_replied' };
    const replyTo = state.pendingRequest?.agent ?? state.lastSpeaker ?? topology.coordinator;
    return { type: 'user_replied', replyTo };
  };

  return {
    name: topology.name,
    machine,
    participants: topology.participants,
    maxTurns: settings.maxTurns,
    stopRule: settings.stopRule,
    descriptor: describe(settings),
    turnOptions: (agent) => turnOptions.get(agent) ?? {},
    routeResponse,
    routeUserInput,
  };
}

/**
 * How many answers `agent` gave in a row before this one, without a real user reply or another
 * agent in between (autonomous prompts do not break the run).
 */
function answersInARow(state: SessionState, agent: string): number {
  let count = 0;
  for (let i = state.thread.length - 1; i >= 0; i--) {
    const m = state.thread[i];
    if (m === undefined) break;
    if (m.source === 'user') {
      if (m.metadata[AUTONOMOUS_PROMPT_KEY] === true) continue;
      break;
    }
    if (m.source !== agent) break;
    if (
      m.type === 'TextMessage' ||
      m.type === 'StructuredMessage' ||
      m.type === 'ToolCallSummaryMessage'
    ) {
      count++;
    }
  }
  return count;
}

/** Participants, topology and routing: a stored session must match them to be resumed. */
function describe(settings: HandoffSettings): Record<string, unknown> {
  const { topology } = settings;
  return {
    kind: 'handoff',
    participants: [...topology.participants.keys()],
    coordinator: topology.coordinator,
    handoffs: Object.fromEntries(
      [...topology.targets].map(([agent, targets]) => [agent, [...targets]]),
    ),
    routing: settings.routing,
    autonomous: [...settings.autonomous.agents],
  };
}
