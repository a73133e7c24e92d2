import type { LLMMessage } from './llm-message.js';
import { asProviderTurns } from './provider-turns.js';

/**
 * The last `size` non-system messages of a request (the system message stays first), widened
 * only as far as needed so that no tool result loses its call.
 */
export function applyContextWindow(
  messages: LLMMessage[],
  size: number | undefined,
  agentName: string,
): LLMMessage[] {
  const [first, ...rest] = messages;
  const body = first?.role === 'system' ? rest : messages;
  const windowed = applyWindow(body, size);
  const turns = asProviderTurns(windowed, agentName, windowed !== body);
  return first?.role === 'system' ? [first, ...turns] : turns;
}

export function applyWindow(messages: LLMMessage[], size: number | undefined): LLMMessage[] {
  if (size === undefined || messages.length <= size) return messages;
  let start = messages.length - size;
  // Tool results follow their call directly, so stepping back over them reaches the call.
  while (start > 0 && messages[start]?.role === 'tool') start--;
  return messages.slice(start);
}
