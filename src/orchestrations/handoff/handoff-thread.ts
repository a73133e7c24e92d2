import type { SessionState } from '../../engine/state/session-state.js';
import { threadOf } from '../../engine/state/state-thread.js';
import { isChatMessage } from '../../messages/message.js';
import type { MessageList } from '../../messages/thread.js';
import { messageToText } from '../../messages/message-text.js';
import { saysPhrase } from './handoff-router.js';

// What a handoff workflow reads in its thread: who declined (lazy routing), where a routed
// specialist's view starts, and how long an autonomous agent has kept the floor.

/** The `metadata` key marking the prompt an autonomous agent receives instead of a user reply. */
export const AUTONOMOUS_PROMPT_KEY = 'batonAutonomousPrompt';

/** The source of the event that records a function classifier's choice in the thread. */
export const CLASSIFIER_SOURCE = 'classifier';

/**
 * The agents that said the lazy-routing phrase since the latest real user message: the classifier
 * is not offered them again in this user turn.
 */
export function declinedThisTurn(thread: MessageList, phrase: string | RegExp): Set<string> {
  const declined = new Set<string>();
  for (let i = thread.length - 1; i >= 0; i--) {
    const m = thread.at(i);
    if (m === undefined) break;
    if (m.source === 'user') {
      if (m.metadata[AUTONOMOUS_PROMPT_KEY] === true || !isChatMessage(m)) continue;
      break;
    }
    if (isChatMessage(m) && m.type !== 'HandoffMessage' && saysPhrase(phrase, messageToText(m))) {
      declined.add(m.source);
    }
  }
  return declined;
}

/** The latest answer that said the lazy-routing phrase, as a request to the user. */
export function latestDecline(
  thread: MessageList,
  phrase: string | RegExp,
): { agent: string; prompt: string } {
  for (let i = thread.length - 1; i >= 0; i--) {
    const m = thread.at(i);
    if (m === undefined || !isChatMessage(m) || m.type === 'HandoffMessage') continue;
    const text = messageToText(m);
    if (m.source !== 'user' && saysPhrase(phrase, text)) return { agent: m.source, prompt: text };
  }
  throw new Error('latestDecline(): the thread holds no declining answer.');
}

/** The text of the latest real user message (autonomous prompts aside). */
export function latestUserText(thread: MessageList): string {
  for (let i = thread.length - 1; i >= 0; i--) {
    const m = thread.at(i);
    if (m?.source === 'user' && m.metadata[AUTONOMOUS_PROMPT_KEY] !== true && isChatMessage(m)) {
      return messageToText(m);
    }
  }
  return '';
}

/**
 * Where a lazily routed specialist's view of the thread starts: `turns` user turns before the
 * message that routed the request to it (a handoff to it, or the classifier's choice).
 */
export function contextStart(thread: MessageList, agent: string, turns: number): number {
  let routedAt = -1;
  for (let i = thread.length - 1; i >= 0; i--) {
    const m = thread.at(i);
    if (
      (m?.type === 'HandoffMessage' && m.target === agent) ||
      (m?.type === 'SelectSpeakerEvent' && m.source === CLASSIFIER_SOURCE && m.content[0] === agent)
    ) {
      routedAt = i;
      break;
    }
  }
  if (routedAt < 0) return 0;
  let seen = 0;
  for (let i = routedAt; i >= 0; i--) {
    const m = thread.at(i);
    if (
      m?.source === 'user' &&
      m.type === 'TextMessage' &&
      m.metadata[AUTONOMOUS_PROMPT_KEY] !== true
    ) {
      seen++;
      if (seen === turns) return i;
    }
  }
  return 0;
}

/**
 * How many answers `agent` gave in a row before this one, without a real user reply or another
 * agent in between (autonomous prompts do not break the run).
 */
export function answersInARow(state: SessionState, agent: string): number {
  let count = 0;
  const thread = threadOf(state);
  for (let i = thread.length - 1; i >= 0; i--) {
    const m = thread.at(i);
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
