import type { z } from 'zod';
import type { LLMMessage } from '../messages/llm-message.js';
import { outputJsonSchema } from './agent-config.js';

import type {
  AgentEvent,
  ChatMessage,
  FunctionCall,
  FunctionExecutionResult,
} from '../messages/message.js';
import {
  handoffMessage,
  streamingChunkEvent,
  structuredMessage,
  textMessage,
  toolCallSummaryMessage,
} from '../messages/message-factories.js';
import type { ChatClient, ModelRequest, ModelResult } from '../models/chat-client.js';
import { normaliseModelResult } from '../models/model-result.js';
import { formatPath } from '../zod-issues.js';
import { saysNothing } from '../messages/handoff-brief.js';
import type { Handoff } from './handoff.js';

/**
 * One model call of agent `agent`; streamed text reaches `emit` as chunks when `stream` is on and
 * the client can stream. What the client returns is normalised before anything can commit it.
 */
export function requestModel(
  client: ChatClient,
  agent: string,
  stream: boolean,
  request: ModelRequest,
  emit: (event: AgentEvent) => void,
): Promise<ModelResult> {
  // Without an async wrapper (one fewer frame and tick per call); a client that throws or returns
  // a plain value is still answered with a promise.
  try {
    if (stream && client.createStream !== undefined) {
      return streamModel(client.createStream(request), agent, emit);
    }
    return Promise.resolve(client.create(request)).then((raw) => normaliseModelResult(raw, agent));
  } catch (error) {
    return Promise.reject(error);
  }
}

async function streamModel(
  stream: ReturnType<NonNullable<ChatClient['createStream']>>,
  agent: string,
  emit: (event: AgentEvent) => void,
): Promise<ModelResult> {
  let result: unknown;
  for await (const item of stream) {
    if (typeof item !== 'string') result = item;
    else if (item !== '') emit(streamingChunkEvent({ source: agent, content: item }));
  }
  if (result === undefined) {
    throw new Error(
      `The model stream of agent "${agent}" ended without a result. The ChatClient's ` +
        'createStream must yield a ModelResult last.',
    );
  }
  return normaliseModelResult(result, agent);
}

/**
 * The chat message of a final model answer: a `TextMessage`, or with `outputSchema` a
 * `StructuredMessage` (a `TextMessage` with `metadata.structuredOutputError` when it does not match).
 * A refusal is a `TextMessage` of the refusal's text with `metadata.refusal: true`.
 */
export function answerOf(
  agent: string,
  result: ModelResult,
  outputSchema: z.ZodType | undefined,
): ChatMessage {
  const content = result.content ?? '';
  const base = { source: agent, usage: result.usage };
  // A refusal's text is the answer; the metadata lets a program tell it from a real answer.
  const refusal = result.refusal === true ? { refusal: true } : undefined;
  if (outputSchema === undefined) {
    return textMessage(
      refusal === undefined ? { ...base, content } : { ...base, content, metadata: refusal },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    const structuredOutputError = 'The answer is not valid JSON.';
    return textMessage({ ...base, content, metadata: { structuredOutputError, ...refusal } });
  }
  const parsed = outputSchema.safeParse(json);
  if (parsed.success) return structuredMessage({ ...base, content: parsed.data });
  const issues = parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
  const structuredOutputError = `The answer does not match the output schema: ${issues.join('; ')}.`;
  return textMessage({ ...base, content, metadata: { structuredOutputError, ...refusal } });
}

/**
 * The context of a handoff without other tool calls (most of them): one frozen empty array, shared,
 * as its messages are readonly (committed ones are deep-frozen anyway).
 */
const NO_CONTEXT: readonly ChatMessage[] = Object.freeze([]);

/**
 * The `HandoffMessage` of an answer that called `handoff` with `brief` (its checked arguments, when
 * it has a brief): its context is one `ToolCallSummaryMessage` with the answer's other tool calls
 * and results (none when there were none).
 */
export function handoffAnswer(
  agent: string,
  { handoff, brief }: { readonly handoff: Handoff; readonly brief: unknown },
  handoffs: ReadonlyMap<string, Handoff>,
  calls: readonly FunctionCall[],
  results: readonly FunctionExecutionResult[],
): ChatMessage {
  // An answer that only hands off (the usual one) has no other calls to pass on.
  const toolCalls = calls.length === 1 ? [] : calls.filter((c) => !handoffs.has(c.name));
  const context = toolCalls.length === 0 ? NO_CONTEXT : [summaryOf(agent, toolCalls, results)];
  const init = { source: agent, target: handoff.target, content: handoff.message, context };
  // A brief without fields (the default brief of a model that gave no reason) says nothing.
  return handoffMessage(saysNothing(brief) ? init : { ...init, brief });
}

/** A `ToolCallSummaryMessage` of `toolCalls` with their results among `results`. */
function summaryOf(
  agent: string,
  toolCalls: FunctionCall[],
  results: readonly FunctionExecutionResult[],
): ChatMessage {
  const ids = new Set(toolCalls.map((c) => c.id));
  const others = results.filter((r) => ids.has(r.callId));
  return toolCallSummaryMessage({
    source: agent,
    content: others.map((r) => r.content).join('\n'),
    toolCalls,
    results: others,
  });
}

/** One model call's request (a new one per call: a client may treat its arrays as its own). */
export function modelRequest(
  messages: LLMMessage[],
  tools: ModelRequest['tools'],
  signal: AbortSignal,
  outputSchema: Record<string, unknown> | undefined,
): ModelRequest {
  const request: ModelRequest = { messages, signal };
  if (tools !== undefined) request.tools = tools.slice();
  if (outputSchema !== undefined) request.outputSchema = outputSchema;
  return request;
}

/** An output format and its JSON Schema. */
export interface TurnOutput {
  readonly schema: z.ZodType | undefined;
  readonly json: Record<string, unknown> | undefined;
}

/** JSON Schemas of output formats given per turn (e.g. by a resolver), computed once each. */
const turnSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The structured format of a turn: the context's, else the agent's own (JSON Schema cached). */
export function turnOutput(
  agent: string,
  own: TurnOutput,
  schema: z.ZodType | undefined,
): TurnOutput {
  if (schema === undefined || schema === own.schema) return own;
  let json = turnSchemas.get(schema);
  if (json === undefined) {
    json = outputJsonSchema(agent, schema);
    turnSchemas.set(schema, json);
  }
  return { schema, json };
}
