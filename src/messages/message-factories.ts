import { newId } from '../ids.js';

import type {
  ChatMessage,
  FunctionCall,
  FunctionExecutionResult,
  GuardrailTrippedEvent,
  HandoffMessage,
  MessageBase,
  ModelClientStreamingChunkEvent,
  SelectSpeakerEvent,
  StopMessage,
  StructuredMessage,
  TextMessage,
  ThoughtEvent,
  ToolApprovalRequestEvent,
  ToolApprovalResponseEvent,
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

/** Builds a `ToolApprovalRequestEvent`: the calls of an agent's answer awaiting a decision. */
export function toolApprovalRequestEvent(
  init: MessageInit & { content: readonly FunctionCall[] },
): ToolApprovalRequestEvent {
  return { type: 'ToolApprovalRequestEvent', ...base(init), content: init.content };
}

/** Builds a `ToolApprovalResponseEvent`; `source` defaults to `"user"`. */
export function toolApprovalResponseEvent(
  init: Partial<MessageInit> & { callId: string; approved: boolean; reason?: string },
): ToolApprovalResponseEvent {
  return {
    type: 'ToolApprovalResponseEvent',
    ...base({ ...init, source: init.source ?? 'user' }),
    callId: init.callId,
    approved: init.approved,
    ...(init.reason === undefined ? {} : { reason: init.reason }),
  };
}

/** Builds a `GuardrailTrippedEvent`; `source` is the guardrail's name. */
export function guardrailTrippedEvent(
  init: MessageInit & { content: string },
): GuardrailTrippedEvent {
  return { type: 'GuardrailTrippedEvent', ...base(init), content: init.content };
}

/**
 * The task that approves the pending tool call `callId`: it runs, and its result goes back to
 * the model. @example await session.run(approve(result.pendingRequest.calls[0].id))
 */
export function approve(callId: string): ToolApprovalResponseEvent {
  return toolApprovalResponseEvent({ callId, approved: true });
}

/**
 * The task that rejects the pending tool call `callId`: the model gets the error result
 * `Tool call "<name>" was rejected by the user` (+ `: <reason>`).
 * @example await session.run(reject(callId, 'Refunds over $500 need a manager.'))
 */
export function reject(callId: string, reason?: string): ToolApprovalResponseEvent {
  return toolApprovalResponseEvent({
    callId,
    approved: false,
    ...(reason === undefined ? {} : { reason }),
  });
}
