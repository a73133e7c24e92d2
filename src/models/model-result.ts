import type { FunctionCall, Usage } from '../messages/message.js';
import { isRecord } from '../unknown-value.js';
import { valueText } from '../value-text.js';
import type { ModelResult } from './chat-client.js';

/** The name a tool call gets when the model sent none: the executor answers it as unknown. */
export const UNNAMED_TOOL = 'unnamed_tool';

/**
 * The boundary between a `ChatClient` and everything that is committed: whatever a client (or an
 * odd OpenAI-compatible server behind it) returns becomes a `ModelResult` that the message schema
 * accepts, so a session never commits a message its own loader would refuse.
 *
 * - `content`: a string is kept; null or absent is null; anything else becomes its JSON text;
 * - `toolCalls`: absent or null is none; each call gets a string `id` (`''` when missing, which
 *   the agent replaces with a generated one), a non-empty `name` (`unnamed_tool` when missing,
 *   which the tool executor answers as an unknown tool) and `arguments` as JSON text (an object is
 *   serialised, null or absent is `'{}'`);
 * - `usage`: each count a non-negative safe integer (rounded and capped; missing, negative or
 *   NaN is 0);
 * - `thought`: kept when it is a non-empty string; other values become text;
 * - `refusal`: kept when it is `true`.
 *
 * @throws Error naming the client of agent `agent` when the value is not an object or `toolCalls`
 * is not an array: that is a broken client, not odd model output.
 */
export function normaliseModelResult(raw: unknown, agent: string): ModelResult {
  if (!isRecord(raw) || Array.isArray(raw)) {
    throw new Error(
      `${clientOf(agent)} returned ${describe(raw)} instead of a ModelResult ` +
        '{ content, toolCalls, usage }. Fix the ChatClient.',
    );
  }
  const value = raw;
  const calls = value.toolCalls ?? [];
  if (!Array.isArray(calls)) {
    throw new Error(
      `${clientOf(agent)} returned toolCalls as ${describe(calls)} instead of an array. Fix the ChatClient.`,
    );
  }
  const result: ModelResult = {
    content: optionalText(value.content),
    toolCalls: calls.map(normaliseToolCall),
    usage: normaliseUsage(value.usage),
  };
  const thought = optionalText(value.thought);
  if (thought !== null && thought !== '') result.thought = thought;
  // What traces report (gen_ai.response.model, finish reasons): kept when the client said.
  if (typeof value.model === 'string' && value.model !== '') result.model = value.model;
  if (typeof value.finishReason === 'string' && value.finishReason !== '') {
    result.finishReason = value.finishReason;
  }
  if (value.refusal === true) result.refusal = true;
  return result;
}

/** One tool call as a provider sent it, made valid (see `normaliseModelResult`). */
export function normaliseToolCall(raw: unknown): FunctionCall {
  const call = isRecord(raw) ? raw : {};
  const { id, name } = call;
  return {
    id: typeof id === 'string' ? id : typeof id === 'number' ? String(id) : '',
    name: typeof name === 'string' && name !== '' ? name : UNNAMED_TOOL,
    arguments: argumentsText(call.arguments),
  };
}

/** No tokens counted: shared by every result that reports none (messages are readonly). */
const NO_USAGE: Usage = Object.freeze({ promptTokens: 0, completionTokens: 0 });

/** Token counts as non-negative integers. */
export function normaliseUsage(raw: unknown): Usage {
  const usage = isRecord(raw) ? raw : {};
  const promptTokens = count(usage.promptTokens);
  const completionTokens = count(usage.completionTokens);
  if (promptTokens === 0 && completionTokens === 0) return NO_USAGE;
  return { promptTokens, completionTokens };
}

function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '{}';
  return valueText(value);
}

function optionalText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return null;
  return valueText(value);
}

function count(value: unknown): number {
  if (typeof value !== 'number' || !(value > 0)) return 0;
  return Math.min(Math.round(value), Number.MAX_SAFE_INTEGER);
}

const clientOf = (agent: string) => `The ChatClient of agent "${agent}"`;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a value of type ${typeof value}`;
}
