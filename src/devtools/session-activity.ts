import type { TaskResult } from '../engine/runnable.js';
import { type AgentMessage, isChatMessage } from '../messages/message.js';
import { handoffMessage } from '../messages/message-factories.js';
import type { WorkflowGraph } from './workflow-graph.js';

/** The states of a workflow graph the page highlights, by role. */
export interface GraphStates {
  /** Per agent name, its machine state. */
  readonly agents: ReadonlyMap<string, string>;
  /** The state where the session waits for the user. */
  readonly input: string | undefined;
  readonly stopped: string | undefined;
}

/** The agents, input and stopped states of a graph. */
export function graphStates(graph: WorkflowGraph | undefined): GraphStates {
  const nodes = graph?.nodes ?? [];
  // An agent that also routes (lazy routing) has two states: its own wins.
  const agents = new Map<string, string>();
  for (const n of [...nodes.filter((n) => !n.router), ...nodes.filter((n) => n.router)]) {
    if (n.agent !== undefined && !agents.has(n.agent)) agents.set(n.agent, n.id);
  }
  return {
    agents,
    input: nodes.find((n) => n.kind === 'input')?.id,
    stopped: nodes.find((n) => n.kind === 'stopped')?.id,
  };
}

/**
 * The machine state a session is in after `message` streams past, read from the message alone
 * (the run commits ahead of the stream, so reading the stored state would run ahead of the page):
 * an agent's output means that agent is speaking, a handoff moves to its target, a request for
 * input moves to the user. Messages that say nothing about it keep `current`.
 */
export function activeAfter(
  current: string | null,
  message: AgentMessage,
  states: GraphStates,
): string | null {
  switch (message.type) {
    case 'HandoffMessage':
      return states.agents.get(message.target) ?? states.input ?? current;
    case 'UserInputRequestedEvent':
      return states.input ?? current;
    case 'StopMessage':
      return states.stopped ?? current;
    case 'SelectSpeakerEvent':
      return states.agents.get(message.content[0] ?? '') ?? current;
    default:
      return states.agents.get(message.source) ?? current;
  }
}

/** The machine states of `agents`, the participants that start a turn now. */
export function speakingStates(agents: readonly string[], states: GraphStates): string[] {
  return agents.flatMap((agent) => {
    const state = states.agents.get(agent);
    return state === undefined ? [] : [state];
  });
}

/** The speakers still at work after `message` streams past: a chat message ends its turn. */
export function speakingAfter(
  speaking: readonly string[],
  message: AgentMessage,
  states: GraphStates,
): string[] {
  const done = isChatMessage(message) ? states.agents.get(message.source) : undefined;
  return done === undefined ? [...speaking] : speaking.filter((state) => state !== done);
}

/** Where a finished run leaves the highlight. */
export function activeAfterResult(
  current: string | null,
  result: TaskResult,
  states: GraphStates,
): string | null {
  if (result.status === 'awaiting_input') return states.input ?? current;
  if (result.status === 'terminated') return states.stopped ?? current;
  return current;
}

/**
 * The agent a team is waiting on when its latest chat message hands off to someone outside the
 * team (a Swarm stopped by `HandoffTermination('user')`): the user's answer must go back to that
 * agent as a `HandoffMessage`. Undefined when the session is not waiting that way.
 */
export function handoffToUserFrom(
  thread: readonly AgentMessage[],
  states: GraphStates,
): string | undefined {
  for (let i = thread.length - 1; i >= 0; i--) {
    const m = thread[i];
    if (m === undefined || m.type === 'StopMessage' || !isChatMessage(m)) continue;
    if (m.type !== 'HandoffMessage') return undefined;
    return states.agents.has(m.target) || m.source === 'user' ? undefined : m.source;
  }
  return undefined;
}

/** The task for the user's `text`: plain text, or the handoff a team waiting on the user needs. */
export function userTask(
  text: string,
  thread: readonly AgentMessage[],
  states: GraphStates,
): string | ReturnType<typeof handoffMessage> {
  const asker = handoffToUserFrom(thread, states);
  return asker === undefined
    ? text
    : handoffMessage({ source: 'user', target: asker, content: text });
}
