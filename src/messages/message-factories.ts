import { newId } from '../ids.js';

import type {
  ChatMessage,
  FunctionCall,
  FunctionExecutionResult,
  HandoffMessage,
  MessageBase,
  ModelClientStreamingChunkEvent,
  SelectSpeakerEvent,
  StopMessage,
  StructuredMessage,
  TextMessage,
  ThoughtEvent,
  ToolCallExecutionEvent,
  ToolCallRequestEvent,
  ToolCallSummaryMessage,
  UserInputRequestedEvent,
} from './message.js';

/** The fields every factory accepts; `id`, `createdAt` and `metadata` are filled when missing. */
export interface MessageInit {
  source: string;
  id?: string;
  createdAt?: string;
  usage?: { promptTokens: number; completionTokens: number };
  metadata?: Record<string, unknown>;
}

function base(init: MessageInit): MessageBase {
  const filled: { -readonly [K in keyof MessageBase]: MessageBase[K] } = {
    id: init.id ?? newId(),
    source: init.source,
    createdAt: init.createdAt ?? new Date().toISOString(),
    metadata: init.metadata ?? {},
  };
  if (init.usage !== undefined) filled.usage = init.usage;
  return filled;
}

/** Builds a `TextMessage`. @example textMessage({ source: 'user', content: 'Hi' }) */
export function textMessage(init: MessageInit & { content: string }): TextMessage {
  return { type: 'TextMessage', ...base(init), content: init.content };
}

/** Builds a `StopMessage`. */
export function stopMessage(init: MessageInit & { content: string }): StopMessage {
  return { type: 'StopMessage', ...base(init), content: init.content };
}

/** Builds a `HandoffMessage` from `source` to `target`. */
export function handoffMessage(
  init: MessageInit & { target: string; content: string; context?: readonly ChatMessage[] },
): HandoffMessage {
  const message: HandoffMessage = {
    type: 'HandoffMessage',
    ...base(init),
    target: init.target,
    content: init.content,
  };
  return init.context === undefined ? message : { ...message, context: init.context };
}

/** Builds a `ToolCallSummaryMessage`. */
export function toolCallSummaryMessage(
  init: MessageInit & {
    content: string;
    toolCalls: readonly FunctionCall[];
    results: readonly FunctionExecutionResult[];
  },
): ToolCallSummaryMessage {
  return {
    type: 'ToolCallSummaryMessage',
    ...base(init),
    content: init.content,
    toolCalls: init.toolCalls,
    results: init.results,
  };
}

/** Builds a `StructuredMessage`. */
export function structuredMessage(init: MessageInit & { content: unknown }): StructuredMessage {
  return { type: 'StructuredMessage', ...base(init), content: init.content };
}

/** Builds a `ToolCallRequestEvent`. */
export function toolCallRequestEvent(
  init: MessageInit & { content: readonly FunctionCall[] },
): ToolCallRequestEvent {
  return { type: 'ToolCallRequestEvent', ...base(init), content: init.content };
}

/** Builds a `ToolCallExecutionEvent`. */
export function toolCallExecutionEvent(
  init: MessageInit & { content: readonly FunctionExecutionResult[] },
): ToolCallExecutionEvent {
  return { type: 'ToolCallExecutionEvent', ...base(init), content: init.content };
}

/** Builds a `UserInputRequestedEvent`; `content` (the prompt) defaults to `""`. */
export function userInputRequestedEvent(
  init: MessageInit & { requestId: string; content?: string },
): UserInputRequestedEvent {
  return {
    type: 'UserInputRequestedEvent',
    ...base(init),
    requestId: init.requestId,
    content: init.content ?? '',
  };
}

/** Builds a `ThoughtEvent`. */
export function thoughtEvent(init: MessageInit & { content: string }): ThoughtEvent {
  return { type: 'ThoughtEvent', ...base(init), content: init.content };
}

/** Builds a `ModelClientStreamingChunkEvent`. */
export function streamingChunkEvent(
  init: MessageInit & { content: string },
): ModelClientStreamingChunkEvent {
  return { type: 'ModelClientStreamingChunkEvent', ...base(init), content: init.content };
}

/** Builds a `SelectSpeakerEvent`. */
export function selectSpeakerEvent(
  init: MessageInit & { content: readonly string[] },
): SelectSpeakerEvent {
  return { type: 'SelectSpeakerEvent', ...base(init), content: init.content };
}
