import type { LLMMessage } from '../messages/llm-message.js';
import type { FunctionCall } from '../messages/message.js';
import type { ModelResult } from '../models/chat-client.js';

// The JSON shapes of `gen_ai.input.messages` and `gen_ai.output.messages` (GenAI semantic
// conventions): messages of `parts`, each a text, a tool call or a tool call's response.
type Part =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: string };

interface InputMessage {
  role: LLMMessage['role'];
  parts: Part[];
  name?: string;
}

/** True when `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` is `true` (any case). */
export function captureMessageContent(): boolean {
  return process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === 'true';
}

/** A model request's messages as `gen_ai.input.messages` (JSON text). */
export function inputMessages(messages: readonly LLMMessage[]): string {
  return JSON.stringify(messages.map(inputMessage));
}

/** A model's answer as `gen_ai.output.messages` (JSON text). */
export function outputMessages(result: ModelResult, finishReason: string): string {
  const parts: Part[] = [];
  if (result.content !== null && result.content !== '') {
    parts.push({ type: 'text', content: result.content });
  }
  parts.push(...result.toolCalls.map(toolCallPart));
  return JSON.stringify([{ role: 'assistant', parts, finish_reason: finishReason }]);
}

function inputMessage(message: LLMMessage): InputMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', parts: [{ type: 'text', content: message.content }] };
    case 'user':
      return withName(
        { role: 'user', parts: [{ type: 'text', content: message.content }] },
        message.name,
      );
    case 'tool':
      return {
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: message.toolCallId, response: message.content }],
      };
    case 'assistant': {
      const parts: Part[] =
        message.content === null || message.content === ''
          ? []
          : [{ type: 'text', content: message.content }];
      parts.push(...(message.toolCalls ?? []).map(toolCallPart));
      return withName({ role: 'assistant', parts }, message.name);
    }
  }
}

function withName(message: InputMessage, name: string | undefined): InputMessage {
  return name === undefined ? message : { ...message, name };
}

function toolCallPart(call: FunctionCall): Part {
  let args: unknown = call.arguments;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    // Arguments that are not JSON are kept as the model sent them.
  }
  return { type: 'tool_call', id: call.id, name: call.name, arguments: args };
}
