import { z } from 'zod';

import type {
  AgentMessage,
  ChatMessage,
  FunctionCall,
  FunctionExecutionResult,
  StopMessage,
  ToolApprovalResponseEvent,
  Usage,
} from './message.js';

/** `T` with `undefined` allowed in each (optional) field: how zod infers an optional key. */
type Loose<T> = T extends unknown ? { [K in keyof T]: T[K] | undefined } : never;

/**
 * zod types an absent optional key as `?: T | undefined`; parsing never writes `undefined` for an
 * absent key, so the interface types (`?: T`, under exactOptionalPropertyTypes) are exact. The one
 * place that says so.
 */
function exact<T>(schema: z.ZodType<Loose<T>>): z.ZodType<T> {
  return schema as z.ZodType<T>;
}

const UsageSchema: z.ZodType<Usage> = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
});

export const FunctionCallSchema: z.ZodType<FunctionCall> = z.object({
  id: z.string(),
  name: z.string().min(1),
  arguments: z.string(),
});

export const FunctionExecutionResultSchema: z.ZodType<FunctionExecutionResult> = z.object({
  callId: z.string(),
  name: z.string(),
  content: z.string(),
  isError: z.boolean(),
});

const base = {
  id: z.string().min(1),
  source: z.string().min(1),
  createdAt: z.iso.datetime({ offset: true }),
  usage: UsageSchema.optional(),
  metadata: z.record(z.string(), z.unknown()),
};

const TextMessageSchema = z.object({
  type: z.literal('TextMessage'),
  ...base,
  content: z.string(),
});
const StopMessageObject = z.object({
  type: z.literal('StopMessage'),
  ...base,
  content: z.string(),
});
/** Validates a `StopMessage`. */
export const StopMessageSchema = exact<StopMessage>(StopMessageObject);
const HandoffMessageSchema = z.object({
  type: z.literal('HandoffMessage'),
  ...base,
  target: z.string().min(1),
  content: z.string(),
  get context(): z.ZodOptional<z.ZodArray<z.ZodType<ChatMessage>>> {
    return z.array(ChatMessageSchema).optional();
  },
  brief: z.unknown().optional(),
});
const ToolCallSummaryMessageSchema = z.object({
  type: z.literal('ToolCallSummaryMessage'),
  ...base,
  content: z.string(),
  toolCalls: z.array(FunctionCallSchema),
  results: z.array(FunctionExecutionResultSchema),
});
const StructuredMessageSchema = z.object({
  type: z.literal('StructuredMessage'),
  ...base,
  content: z.unknown(),
});

const ToolApprovalResponseEventObject = z.object({
  type: z.literal('ToolApprovalResponseEvent'),
  ...base,
  callId: z.string().min(1),
  approved: z.boolean(),
  reason: z.string().optional(),
  result: z.string().optional(),
  amountUsd: z.number().positive().finite().optional(),
});
/** Validates a `ToolApprovalResponseEvent` (a decision given as a task). */
export const ToolApprovalResponseEventSchema = exact<ToolApprovalResponseEvent>(
  ToolApprovalResponseEventObject,
);

/** Validates any chat message. */
export const ChatMessageSchema: z.ZodType<ChatMessage> = exact<ChatMessage>(
  z.discriminatedUnion('type', [
    TextMessageSchema,
    StopMessageObject,
    HandoffMessageSchema,
    ToolCallSummaryMessageSchema,
    StructuredMessageSchema,
  ]),
);

/**
 * Validates any message of the library (chat message or agent event). Invalid input is rejected
 * with the path of the bad field, e.g. `content[0].arguments`.
 */
export const AgentMessageSchema: z.ZodType<AgentMessage> = exact<AgentMessage>(
  z.discriminatedUnion('type', [
    TextMessageSchema,
    StopMessageObject,
    HandoffMessageSchema,
    ToolCallSummaryMessageSchema,
    StructuredMessageSchema,
    z.object({
      type: z.literal('ToolCallRequestEvent'),
      ...base,
      content: z.array(FunctionCallSchema),
    }),
    z.object({
      type: z.literal('ToolCallExecutionEvent'),
      ...base,
      content: z.array(FunctionExecutionResultSchema),
    }),
    z.object({
      type: z.literal('UserInputRequestedEvent'),
      ...base,
      requestId: z.string().min(1),
      content: z.string(),
    }),
    z.object({ type: z.literal('ThoughtEvent'), ...base, content: z.string() }),
    z.object({ type: z.literal('ModelClientStreamingChunkEvent'), ...base, content: z.string() }),
    z.object({ type: z.literal('SelectSpeakerEvent'), ...base, content: z.array(z.string()) }),
    z.object({
      type: z.literal('ToolApprovalRequestEvent'),
      ...base,
      content: z.array(FunctionCallSchema),
    }),
    ToolApprovalResponseEventObject,
    z.object({ type: z.literal('GuardrailTrippedEvent'), ...base, content: z.string() }),
    z.object({
      type: z.literal('ToolInDoubtEvent'),
      ...base,
      content: z.array(FunctionCallSchema),
    }),
  ]),
);
