/** Token counts reported by a model for one call. */
export interface Usage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** What every message carries, whatever its type. */
export interface MessageBase {
  /** `crypto.randomUUID()` unless given. */
  readonly id: string;
  /** `"user"` or an agent's name. */
  readonly source: string;
  /** ISO-8601 time of creation. */
  readonly createdAt: string;
  readonly usage?: Usage;
  /** Free-form; carried unchanged through every hop, filter and checkpoint. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** A model's request to call a tool; `arguments` is JSON text, exactly as the model wrote it. */
export interface FunctionCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** The result of one tool call; every call gets exactly one. */
export interface FunctionExecutionResult {
  readonly callId: string;
  readonly name: string;
  readonly content: string;
  readonly isError: boolean;
}

/** Plain text from the user or an agent. */
export interface TextMessage extends MessageBase {
  readonly type: 'TextMessage';
  readonly content: string;
}

/** A request to stop; termination conditions return these. */
export interface StopMessage extends MessageBase {
  readonly type: 'StopMessage';
  readonly content: string;
}

/**
 * Control passes from `source` to `target`; `context` holds the other tool calls of that answer,
 * `brief` what `source` told `target` (the handoff tool's checked arguments), when it has a brief.
 */
export interface HandoffMessage extends MessageBase {
  readonly type: 'HandoffMessage';
  readonly target: string;
  readonly content: string;
  readonly context?: readonly ChatMessage[];
  readonly brief?: unknown;
}

/** An agent's answer when its tool iterations were used up: the calls, their results, a summary. */
export interface ToolCallSummaryMessage extends MessageBase {
  readonly type: 'ToolCallSummaryMessage';
  readonly content: string;
  readonly toolCalls: readonly FunctionCall[];
  readonly results: readonly FunctionExecutionResult[];
}

/** An answer in an agent's structured output format (already validated). */
export interface StructuredMessage extends MessageBase {
  readonly type: 'StructuredMessage';
  readonly content: unknown;
}

/** A message of the conversation proper: what agents say to each other and to the user. */
export type ChatMessage =
  TextMessage | StopMessage | HandoffMessage | ToolCallSummaryMessage | StructuredMessage;

/** A model asked for tool calls. */
export interface ToolCallRequestEvent extends MessageBase {
  readonly type: 'ToolCallRequestEvent';
  readonly content: readonly FunctionCall[];
}

/** Tool calls were executed (or intercepted); one result per call. */
export interface ToolCallExecutionEvent extends MessageBase {
  readonly type: 'ToolCallExecutionEvent';
  readonly content: readonly FunctionExecutionResult[];
}

/** The session pauses for the user; `requestId` matches `TaskResult.pendingRequest.id`. */
export interface UserInputRequestedEvent extends MessageBase {
  readonly type: 'UserInputRequestedEvent';
  readonly requestId: string;
  readonly content: string;
}

/** A model's reasoning, when it reports one. */
export interface ThoughtEvent extends MessageBase {
  readonly type: 'ThoughtEvent';
  readonly content: string;
}

/** A piece of streamed model text; streamed, never kept in the thread. */
export interface ModelClientStreamingChunkEvent extends MessageBase {
  readonly type: 'ModelClientStreamingChunkEvent';
  readonly content: string;
}

/** A selector picked the next speaker(s). */
export interface SelectSpeakerEvent extends MessageBase {
  readonly type: 'SelectSpeakerEvent';
  readonly content: readonly string[];
}

/** An agent's turn pauses until the user approves or rejects these tool calls. */
export interface ToolApprovalRequestEvent extends MessageBase {
  readonly type: 'ToolApprovalRequestEvent';
  readonly content: readonly FunctionCall[];
}

/**
 * An agent's turn pauses because these `"once"` calls have a committed start and no result (the
 * process died, or the run was cancelled, while they ran): each awaits a decision.
 */
export interface ToolInDoubtEvent extends MessageBase {
  readonly type: 'ToolInDoubtEvent';
  readonly content: readonly FunctionCall[];
}

/**
 * The user's decision on one call awaiting approval or in doubt, or on a `"budget"` request (whose
 * id is then `callId`), made by `approve()` / `reject()` / `resolve()`.
 */
export interface ToolApprovalResponseEvent extends MessageBase {
  readonly type: 'ToolApprovalResponseEvent';
  readonly callId: string;
  readonly approved: boolean;
  readonly reason?: string;
  /** With `resolve()`: the result recorded as the tool's, for a call in doubt. */
  readonly result?: string;
  /**
   * With `approve(requestId, { amountUsd })` on a `"budget"` request: the US dollars the session's
   * budget is raised by.
   */
  readonly amountUsd?: number;
  /** Never present: declared so that `message.content` reads on any `AgentMessage`. */
  readonly content?: never;
}

/** A guardrail tripped; `source` is the guardrail's name, `content` its info as text. */
export interface GuardrailTrippedEvent extends MessageBase {
  readonly type: 'GuardrailTrippedEvent';
  readonly content: string;
}

/** Something that happened inside an agent's turn; not part of the conversation proper. */
export type AgentEvent =
  | ToolCallRequestEvent
  | ToolCallExecutionEvent
  | UserInputRequestedEvent
  | ThoughtEvent
  | ModelClientStreamingChunkEvent
  | SelectSpeakerEvent
  | ToolApprovalRequestEvent
  | ToolApprovalResponseEvent
  | GuardrailTrippedEvent
  | ToolInDoubtEvent;

/** Any message of the library: a chat message or an agent event. */
export type AgentMessage = ChatMessage | AgentEvent;

/** The `type` of every chat message. */
export const CHAT_MESSAGE_TYPES = [
  'TextMessage',
  'StopMessage',
  'HandoffMessage',
  'ToolCallSummaryMessage',
  'StructuredMessage',
] as const satisfies readonly ChatMessage['type'][];

/** The `type` of every agent event. */
export const AGENT_EVENT_TYPES = [
  'ToolCallRequestEvent',
  'ToolCallExecutionEvent',
  'UserInputRequestedEvent',
  'ThoughtEvent',
  'ModelClientStreamingChunkEvent',
  'SelectSpeakerEvent',
  'ToolApprovalRequestEvent',
  'ToolApprovalResponseEvent',
  'GuardrailTrippedEvent',
  'ToolInDoubtEvent',
] as const satisfies readonly AgentEvent['type'][];

const chatTypes: ReadonlySet<string> = new Set(CHAT_MESSAGE_TYPES);
const eventTypes: ReadonlySet<string> = new Set(AGENT_EVENT_TYPES);

/** True for the five chat message types (what `MaxMessageTermination` counts by default). */
export function isChatMessage(message: AgentMessage): message is ChatMessage {
  return chatTypes.has(message?.type);
}

/** True for the agent event types. */
export function isAgentEvent(message: AgentMessage): message is AgentEvent {
  return eventTypes.has(message?.type);
}
