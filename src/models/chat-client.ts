import type { LLMMessage } from '../messages/llm-message.js';
import type { FunctionCall, Usage } from '../messages/message.js';

/** A tool as a model sees it: a name, what it is for and its arguments as JSON Schema. */
export interface ToolSchema {
  name: string;
  description: string;
  /** JSON Schema of the arguments object (`type: "object"`). */
  parameters: Record<string, unknown>;
}

/** One call to a model. */
export interface ModelRequest {
  /** System, user, assistant (with tool calls) and tool messages, oldest first. */
  messages: LLMMessage[];
  /** The tools the model may call; omitted when there are none. */
  tools?: ToolSchema[];
  /** JSON Schema the answer must follow (structured output). */
  outputSchema?: unknown;
  /** Aborts the call; the returned promise (or stream) then rejects. */
  signal?: AbortSignal;
}

/** What a model answered: text, tool calls or both, with the tokens it used. */
export interface ModelResult {
  content: string | null;
  toolCalls: FunctionCall[];
  usage: Usage;
  /** The model's reasoning, when the provider reports it separately. */
  thought?: string;
  /** The model that answered, when the provider says (traces: `gen_ai.response.model`). */
  model?: string;
  /** Why the model stopped (`stop`, `tool_calls`, `length`…), when the provider says. */
  finishReason?: string;
  /**
   * True when the model refused to answer (OpenAI's `refusal`): `content` is then the refusal's
   * text, and the agent's answer carries `metadata.refusal: true`.
   */
  refusal?: true;
}

/**
 * The one interface the library uses to talk to a model. `OpenAIChatClient` speaks to any
 * OpenAI-compatible server; `ScriptedChatClient` plays scripted answers for tests and demos.
 */
export interface ChatClient {
  /** The model requests go to, when the client knows it (traces: `chat <model>`). */
  readonly model?: string | undefined;
  /** Who serves the model, e.g. `openai` (traces: `gen_ai.provider.name`). */
  readonly provider?: string | undefined;
  /**
   * The longest answer, in tokens, the client asks the model for, when it sets one: a budget in
   * money reserves this many answer tokens for each call instead of its own default.
   */
  readonly maxCompletionTokens?: number | undefined;
  /** Sends one request and resolves to the whole answer. */
  create(request: ModelRequest): Promise<ModelResult>;
  /** Streams the answer: text chunks as they arrive, then the whole `ModelResult` last. */
  createStream?(request: ModelRequest): AsyncIterable<string | ModelResult>;
}
