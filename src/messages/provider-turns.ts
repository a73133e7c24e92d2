import type { LLMMessage } from './llm-message.js';
import type { FunctionCall, FunctionExecutionResult } from './message.js';

// How a view keeps to the rules every provider enforces. Anthropic has no `name` on messages,
// refuses a request whose last message is an assistant turn, and (like Bedrock) refuses tool
// calls in the history when the request offers no tools; some servers want a user turn first.
// So other agents speak in `user` messages that name them, and notes fill the gaps.

/** The note added when the window cut off the messages before the first user turn. */
export const EARLIER_NOT_SHOWN = '[earlier messages are not shown]';
/** The note added when the agent spoke first, before any user turn. */
export const CONVERSATION_START = '[start of the conversation]';

/** The note that ends a request whose last message is the agent's own: it has the floor again. */
export function yourTurn(agentName: string): string {
  return `[${agentName}, it is your turn]`;
}

/**
 * `messages` (no system message) made to start with a `user` message and end with a `user` or
 * `tool` message, adding a note where they would not: `EARLIER_NOT_SHOWN` (when `cut`, i.e. a
 * context window dropped the start) or `CONVERSATION_START` before a first assistant turn, and
 * `yourTurn(agentName)` after a last one (or as the only message of an empty view). Returns
 * `messages` itself when nothing is added.
 */
export function asProviderTurns(
  messages: LLMMessage[],
  agentName: string,
  cut: boolean,
): LLMMessage[] {
  const first = messages[0];
  const last = messages[messages.length - 1];
  const lead = first !== undefined && first.role !== 'user';
  const tail = last === undefined || last.role === 'assistant';
  if (!lead && !tail) return messages;
  const out: LLMMessage[] = lead
    ? [{ role: 'user', content: cut ? EARLIER_NOT_SHOWN : CONVERSATION_START }, ...messages]
    : messages.slice();
  if (tail) out.push({ role: 'user', content: yourTurn(agentName) });
  return out;
}

/**
 * Another agent's tool calls with their results, as text for a `user` message: one line per
 * call, `[triage] called lookup({"id":42}) -> unpaid` (`-> error: …` for a failed call).
 */
export function callsText(
  source: string,
  calls: readonly FunctionCall[],
  results: ReadonlyMap<string, FunctionExecutionResult>,
): string {
  let text = '';
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as FunctionCall;
    const result = results.get(call.id);
    const outcome = result?.isError === true ? `error: ${result.content}` : (result?.content ?? '');
    text += `${i === 0 ? '' : '\n'}[${source}] called ${call.name}(${call.arguments}) -> ${outcome}`;
  }
  return text;
}

// A source may be any text without "]" ("Team Lead"); bounded, so that a long message that only
// looks like one costs little.
const HANDOFF_TEXT = /^\[handoff from ([^\]]{1,200}?) to [^\]]{1,200}\]: /;
const SPOKEN_TEXT = /^\[([^\]]{1,200})\](?:: | called )/;
const TURN_NOTE = /^\[[^\]\s]+, it is your turn\]$/;

/**
 * Who wrote a message of a view (`toModelMessages`), for code that reads requests, such as a
 * scripted model: `"user"` for what the user said, another agent's name for its turns, calls and
 * handoffs (user messages that begin `[name]: `, `[name] called ` or `[handoff from name to …]: `),
 * and `undefined` for the agent's own messages, tool results and the notes.
 *
 * @example request.messages.findLast((m) => speakerOf(m) === 'user')?.content
 */
export function speakerOf(message: LLMMessage): string | undefined {
  if (message.role === 'assistant') return message.name;
  if (message.role !== 'user') return undefined;
  const { content } = message;
  if (content === EARLIER_NOT_SHOWN || content === CONVERSATION_START || TURN_NOTE.test(content)) {
    return undefined;
  }
  return (HANDOFF_TEXT.exec(content) ?? SPOKEN_TEXT.exec(content))?.[1] ?? message.name ?? 'user';
}
