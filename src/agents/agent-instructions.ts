import { ConfigError } from '../errors.js';
import type { StateValue } from './conversation-state.js';
import type { HandoffInfo } from '../messages/handoff-brief.js';
import type { LLMMessage } from '../messages/llm-message.js';

/** What an `instructions` function is given at each model call. */
export interface InstructionsContext {
  readonly state: StateValue;
  readonly sessionId: string;
  readonly agent: string;
  /** The handoff that gave the agent the floor (who, and the brief), until the next handoff. */
  readonly handoff?: HandoffInfo;
}

/** Instructions computed at every model call from the conversation state. */
export type Instructions = (ctx: InstructionsContext) => string | Promise<string>;

/** The text of `instructions` for one model call. @throws ConfigError when a function gives no string. */
export async function instructionsText(
  instructions: string | Instructions | undefined,
  ctx: InstructionsContext,
): Promise<string | undefined> {
  if (typeof instructions !== 'function') return instructions;
  const text = await instructions(ctx);
  if (typeof text !== 'string') {
    throw new ConfigError(
      `Agent "${ctx.agent}": the instructions function returned ${JSON.stringify(text)}; it must ` +
        'return a string (or a promise of one).',
      { path: 'instructions' },
    );
  }
  return text;
}

/** `messages` with `text` as their system message (none when empty), changed in place. */
export function setSystemMessage(messages: LLMMessage[], text: string | undefined): void {
  const has = messages[0]?.role === 'system';
  if (!text) {
    if (has) messages.shift();
  } else if (has) messages[0] = { role: 'system', content: text };
  else messages.unshift({ role: 'system', content: text });
}
