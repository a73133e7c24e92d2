import { newId } from '../ids.js';

import type {
  AgentMessage,
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
  ToolInDoubtEvent,
  ToolCallExecutionEvent,
  ToolCallRequestEvent,
  ToolCallSummaryMessage,
  UserInputRequestedEvent,
} from './message.js';

/**
 * The fields every factory accepts; `id`, `createdAt` and `metadata` are filled when missing (the
 * metadata filled in is an empty object, frozen: messages are readonly).
 */
export interface MessageInit {
  source: string;
  id?: string;
  createdAt?: string;
  usage?: { promptTokens: number; completionTokens: number };
  metadata?: Record<string, unknown>;
}

/**
 * The metadata of every message made without any: one frozen empty object, shared. Messages are
 * readonly (committed ones are deep-frozen anyway), so nothing can tell it from a fresh `{}` but an
 * attempt to write into it, which throws; a fresh `{}` was 56 bytes held per message.
 */
const NO_METADATA: Readonly<Record<string, unknown>> = Object.freeze({});

let stampedAt = Number.NaN;
let stamp = '';

/**
 * The current time as ISO-8601. Messages made in the same millisecond share one string: a session's
 * messages are mostly made a few at a time, and each fresh string was 40 bytes held per message.
 */
function createdNow(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stamp = new Date(now).toISOString();
    stampedAt = now;
  }
  return stamp;
}

const idOf = (init: MessageInit): string => init.id ?? newId();
const createdAtOf = (init: MessageInit): string => init.createdAt ?? createdNow();
const metadataOf = (init: MessageInit): Readonly<Record<string, unknown>> =>
  init.metadata ?? NO_METADATA;

/**
 * The common fields, for the factories' general case. The usual cases build each message in one
 * object literal instead: V8 then keeps every field inside the object, where a spread adds a
 * separate property array to each message (and a copy made with a spread can get a hidden class of
 * its own, hundreds of bytes per message).
 */
function base(init: MessageInit): MessageBase {
  const filled: { -readonly [K in keyof MessageBase]: MessageBase[K] } = {
    id: idOf(init),
    source: init.source,
    createdAt: createdAtOf(init),
    metadata: metadataOf(init),
  };
  if (init.usage !== undefined) filled.usage = init.usage;
  return filled;
}

/**
 * A message whose own field is `content` alone (most types), in one object literal: its fields in
 * the order `base()` gives them, `usage` only when given.
 */
function contentMessage<T extends AgentMessage['type'], C>(type: T, init: MessageInit, content: C) {
  const usage = init.usage;
  return usage === undefined
    ? {
        type,
        id: idOf(init),
        source: init.source,
        createdAt: createdAtOf(init),
        metadata: metadataOf(init),
        content,
      }
    : {
        type,
        id: idOf(init),
        source: init.source,
        createdAt: createdAtOf(init),
        metadata: metadataOf(init),
        usage,
        content,
      };
}

/** Builds a `TextMessage`. @example textMessage({ source: 'user', content: 'Hi' }) */
export function textMessage(init: MessageInit & { content: string }): TextMessage {
  return contentMessage('TextMessage', init, init.content);
}

/** Builds a `StopMessage`. */
export function stopMessage(init: MessageInit & { content: string }): StopMessage {
  return contentMessage('StopMessage', init, init.content);
}

/** Builds a `HandoffMessage` from `source` to `target`, with the `brief` it hands over if any. */
export function handoffMessage(
  init: MessageInit & {
    target: string;
    content: string;
    context?: readonly ChatMessage[];
    brief?: unknown;
  },
): HandoffMessage {
  const { target, content, context, brief } = init;
  if (init.usage !== undefined || brief !== undefined) {
    return {
      type: 'HandoffMessage',
      ...base(init),
      target,
      content,
      ...(context === undefined ? {} : { context }),
      ...(brief === undefined ? {} : { brief }),
    };
  }
  const id = idOf(init);
  const createdAt = createdAtOf(init);
  const metadata = metadataOf(init);
  const source = init.source;
  return context === undefined
    ? { type: 'HandoffMessage', id, source, createdAt, metadata, target, content }
    : { type: 'HandoffMessage', id, source, createdAt, metadata, target, content, context };
}

/** Builds a `ToolCallSummaryMessage`. */
export function toolCallSummaryMessage(
  init: MessageInit & {
    content: string;
    toolCalls: readonly FunctionCall[];
    results: readonly FunctionExecutionResult[];
  },
): ToolCallSummaryMessage {
  const { content, toolCalls, results } = init;
  if (init.usage !== undefined) {
    return { type: 'ToolCallSummaryMessage', ...base(init), content, toolCalls, results };
  }
  return {
    type: 'ToolCallSummaryMessage',
    id: idOf(init),
    source: init.source,
    createdAt: createdAtOf(init),
    metadata: metadataOf(init),
    content,
    toolCalls,
    results,
  };
}

/** Builds a `StructuredMessage`. */
export function structuredMessage(init: MessageInit & { content: unknown }): StructuredMessage {
  return contentMessage('StructuredMessage', init, init.content);
}

/** Builds a `ToolCallRequestEvent`. */
export function toolCallRequestEvent(
  init: MessageInit & { content: readonly FunctionCall[] },
): ToolCallRequestEvent {
  return contentMessage('ToolCallRequestEvent', init, init.content);
}

/** Builds a `ToolCallExecutionEvent`. */
export function toolCallExecutionEvent(
  init: MessageInit & { content: readonly FunctionExecutionResult[] },
): ToolCallExecutionEvent {
  return contentMessage('ToolCallExecutionEvent', init, init.content);
}

/** Builds a `UserInputRequestedEvent`; `content` (the prompt) defaults to `""`. */
export function userInputRequestedEvent(
  init: MessageInit & { requestId: string; content?: string },
): UserInputRequestedEvent {
  const requestId = init.requestId;
  const content = init.content ?? '';
  if (init.usage !== undefined) {
    return { type: 'UserInputRequestedEvent', ...base(init), requestId, content };
  }
  return {
    type: 'UserInputRequestedEvent',
    id: idOf(init),
    source: init.source,
    createdAt: createdAtOf(init),
    metadata: metadataOf(init),
    requestId,
    content,
  };
}

/** Builds a `ThoughtEvent`. */
export function thoughtEvent(init: MessageInit & { content: string }): ThoughtEvent {
  return contentMessage('ThoughtEvent', init, init.content);
}

/** Builds a `ModelClientStreamingChunkEvent`. */
export function streamingChunkEvent(
  init: MessageInit & { content: string },
): ModelClientStreamingChunkEvent {
  return contentMessage('ModelClientStreamingChunkEvent', init, init.content);
}

/** Builds a `SelectSpeakerEvent`. */
export function selectSpeakerEvent(
  init: MessageInit & { content: readonly string[] },
): SelectSpeakerEvent {
  return contentMessage('SelectSpeakerEvent', init, init.content);
}

/** Builds a `ToolApprovalRequestEvent`: the calls of an agent's answer awaiting a decision. */
export function toolApprovalRequestEvent(
  init: MessageInit & { content: readonly FunctionCall[] },
): ToolApprovalRequestEvent {
  return contentMessage('ToolApprovalRequestEvent', init, init.content);
}

/** Builds a `ToolInDoubtEvent`: the `"once"` calls of an agent's turn whose outcome is unknown. */
export function toolInDoubtEvent(
  init: MessageInit & { content: readonly FunctionCall[] },
): ToolInDoubtEvent {
  return contentMessage('ToolInDoubtEvent', init, init.content);
}

/** Builds a `ToolApprovalResponseEvent`; `source` defaults to `"user"`. */
export function toolApprovalResponseEvent(
  init: Partial<MessageInit> & {
    callId: string;
    approved: boolean;
    reason?: string;
    result?: string;
    amountUsd?: number;
  },
): ToolApprovalResponseEvent {
  return {
    type: 'ToolApprovalResponseEvent',
    ...base({ ...init, source: init.source ?? 'user' }),
    callId: init.callId,
    approved: init.approved,
    ...(init.reason === undefined ? {} : { reason: init.reason }),
    ...(init.result === undefined ? {} : { result: init.result }),
    ...(init.amountUsd === undefined ? {} : { amountUsd: init.amountUsd }),
  };
}

/** Builds a `GuardrailTrippedEvent`; `source` is the guardrail's name. */
export function guardrailTrippedEvent(
  init: MessageInit & { content: string },
): GuardrailTrippedEvent {
  return contentMessage('GuardrailTrippedEvent', init, init.content);
}

/** Options of `approve()`. */
export interface ApproveOptions {
  /** For a `"budget"` request: the US dollars the session's budget is raised by. */
  amountUsd?: number;
}

/**
 * The task that approves the pending tool call `callId`: it runs, and its result goes back to
 * the model. For a `"budget"` request, `callId` is the request's id and `amountUsd` the raise.
 * @example await session.run(approve(result.pendingRequest.calls[0].id))
 * @example await session.run(approve(result.pendingRequest.id, { amountUsd: 0.5 }))
 */
export function approve(callId: string, options: ApproveOptions = {}): ToolApprovalResponseEvent {
  const amountUsd = options.amountUsd;
  return toolApprovalResponseEvent({
    callId,
    approved: true,
    ...(amountUsd === undefined ? {} : { amountUsd }),
  });
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

/**
 * The task that settles the call in doubt `callId` with the result it had: recorded as
 * the decision (`approved: true`, `result`) and as the tool's result (`isError: false`); the tool
 * does not run again. Only for calls in doubt: elsewhere `run()` rejects with a `ConfigError`.
 * @example await session.run(resolve(callId, 'Refund R-1 issued.'))
 */
export function resolve(callId: string, result: string): ToolApprovalResponseEvent {
  return toolApprovalResponseEvent({ callId, approved: true, result });
}
