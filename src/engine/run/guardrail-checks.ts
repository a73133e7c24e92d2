import { EMPTY_STATE, type StateValue } from '../../agents/conversation-state.js';
import { firstTripped, type Guardrail, infoText, type Tripped } from '../../agents/guardrail.js';
import type { AgentMessage } from '../../messages/message.js';
import { isChatMessage } from '../../messages/message.js';
import { guardrailTrippedEvent } from '../../messages/message-factories.js';
import { messageToText } from '../../messages/message-text.js';
import { quietSignal } from './agent-turn.js';

/** An agent's final answer (a text or structured message): what output guardrails check. */
export function isAnswer(message: AgentMessage): boolean {
  return message.type === 'TextMessage' || message.type === 'StructuredMessage';
}

/** The first input guardrail that trips on the task's chat messages, or null. */
export function checkInput(
  guardrails: readonly Guardrail[] | undefined,
  sessionId: string,
  thread: Iterable<AgentMessage>,
  task: readonly AgentMessage[],
  signal: AbortSignal | undefined,
  state: StateValue = EMPTY_STATE,
): Promise<Tripped | null> | null {
  if (guardrails === undefined || guardrails.length === 0) return null;
  const chat = task.filter(isChatMessage);
  if (chat.length === 0) return null;
  return firstTripped(guardrails, {
    text: chat.map((m) => messageToText(m)).join('\n'),
    messages: [...thread, ...task],
    agent: null,
    sessionId,
    signal: signal ?? quietSignal(),
    state,
  });
}

/**
 * The first output guardrail that trips on `agent`'s answer, or null. `messages` gives the thread
 * up to the answer; it is only built when there are guardrails (it copies the whole thread).
 */
export function checkOutput(
  guardrails: readonly Guardrail[] | undefined,
  sessionId: string,
  agent: string,
  answer: AgentMessage,
  messages: () => readonly AgentMessage[],
  signal: AbortSignal | undefined,
  state: StateValue = EMPTY_STATE,
): Promise<Tripped | null> | null {
  if (guardrails === undefined || guardrails.length === 0 || !isAnswer(answer)) return null;
  return firstTripped(guardrails, {
    text: messageToText(answer),
    messages: messages(),
    agent,
    sessionId,
    signal: signal ?? quietSignal(),
    state,
  });
}

/** The event a tripped guardrail leaves in the thread. */
export function trippedEvent(tripped: Tripped): AgentMessage {
  return guardrailTrippedEvent({ source: tripped.guardrail.name, content: infoText(tripped.info) });
}
