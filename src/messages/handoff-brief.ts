import type { AgentMessage, HandoffMessage } from './message.js';
import type { Thread } from './thread.js';

/**
 * In a `'brief'` view: the user's messages, the agent's own turns (its answers and tool calls) and
 * the handoffs to it; not the other agents' turns, nor the agent's own handoffs away (what it told
 * the next agent is that agent's brief, not part of its conversation with the customer).
 */
export function inBriefView(message: AgentMessage, agentName: string): boolean {
  if (message.source === 'user') return true;
  if (message.type === 'HandoffMessage') return message.target === agentName;
  return message.source === agentName;
}

/**
 * The text of a handoff in a view: its content, then its brief as JSON (`Brief: {...}`) unless it
 * has none.
 */
export function handoffText(message: HandoffMessage): string {
  const { brief } = message;
  if (saysNothing(brief)) return message.content;
  return `${message.content}\nBrief: ${JSON.stringify(brief)}`;
}

/** True for no brief, and for a brief without fields (`{}`), which is not recorded. */
export function saysNothing(brief: unknown): boolean {
  if (brief === undefined || brief === null) return true;
  return typeof brief === 'object' && !Array.isArray(brief) && Object.keys(brief).length === 0;
}

/** What an agent that has the floor through a handoff knows of it: who handed off, and the brief. */
export interface HandoffInfo {
  readonly from: string;
  readonly brief: unknown;
}

/**
 * The handoff that gave `agent` the floor, from the thread alone (so a resumed session knows it):
 * the latest `HandoffMessage` when it targets `agent`; `undefined` when the latest handoff went to
 * someone else (the floor has moved on) or there is none.
 */
export function handoffTo(thread: Thread, agent: string): HandoffInfo | undefined {
  const at = thread.index().lastHandoff;
  if (at < 0) return undefined;
  const m = thread.at(at);
  if (m?.type !== 'HandoffMessage' || m.target !== agent || m.source === agent) return undefined;
  return { from: m.source, brief: m.brief };
}

const NO_HANDOFF: { readonly handoff?: HandoffInfo } = Object.freeze({});

/** `{ handoff }` with the handoff that gave `agent` the floor (`handoffTo`), or `{}`. */
export function handoffContext(thread: Thread, agent: string): { readonly handoff?: HandoffInfo } {
  const handoff = handoffTo(thread, agent);
  return handoff === undefined ? NO_HANDOFF : { handoff };
}
