import type { z } from 'zod';

import { ConfigError } from '../errors.js';
import type { LLMMessage } from '../messages/llm-message.js';
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
  thoughtEvent,
  toolCallExecutionEvent,
  toolCallRequestEvent,
  toolCallSummaryMessage,
} from '../messages/message-factories.js';
import { applyContextWindow, toModelMessages } from '../messages/model-view.js';
import { indexThread } from '../messages/thread-index.js';
import type { ChatClient, ModelRequest, ModelResult } from '../models/chat-client.js';
import { normaliseModelResult } from '../models/model-result.js';
import { traceChat } from '../observability/gen-ai-spans.js';
import { formatPath } from '../zod-issues.js';
import {
  checkAgentName,
  checkDistinctTargets,
  checkMaxToolIterations,
  indexTools,
  mergeHandoffs,
  outputJsonSchema,
} from './agent-config.js';
import { withUniqueIds } from './call-ids.js';
import type { AgentContext, AgentResponse, ChatAgent } from './chat-agent.js';
import type { Handoff } from './handoff.js';
import { interceptHandoffs } from './handoff-middleware.js';
import type { Tool } from './tool.js';
import {
  composeToolMiddleware,
  realTimer,
  type Timer,
  type ToolMiddleware,
  toolExecutor,
} from './tool-execution.js';
import { valueText } from '../value-text.js';

/** Options of `Agent`. */
export interface AgentOptions {
  /** A letter followed by up to 63 letters, digits, `_` or `-`. */
  name: string;
  /** @default 'An agent that provides assistance with ability to use tools.' */
  description?: string;
  /** The system message of every model request; none when omitted. */
  instructions?: string;
  client: ChatClient;
  tools?: readonly Tool[];
  /** Targets (names or `Handoff`s) this agent may pass control to. */
  handoffs?: readonly (string | Handoff)[];
  /** Model calls per turn that may end in tool calls. @default 1 */
  maxToolIterations?: number;
  /** Answers become `StructuredMessage`s validated with this schema. */
  outputSchema?: z.ZodType;
  /** Layers around every (non-handoff) tool call; the first is the outermost. */
  middleware?: readonly ToolMiddleware[];
  /**
   * Stream model answers: text chunks reach `ctx.emit` as `ModelClientStreamingChunkEvent`s while
   * the model writes (when the client has `createStream`; otherwise it is called normally).
   * @default false (AutoGen's `model_client_stream`)
   */
  stream?: boolean;
  /** Schedules tool timeouts; pass a fake one in tests. @default setTimeout */
  timer?: Timer;
}

/** JSON Schemas of output formats given per turn (e.g. by a resolver), computed once each. */
const turnSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

/**
 * The LLM-backed `ChatAgent` (AutoGen's AssistantAgent semantics, stateless). Each turn it builds
 * its view of the thread (`toModelMessages`), calls the model, runs the tools it asks for and
 * answers with one chat message:
 *
 * - text → `TextMessage` (with usage); with `outputSchema` → `StructuredMessage`, or a
 *   `TextMessage` with `metadata.structuredOutputError` when the answer does not match;
 * - tool calls → `ToolCallRequestEvent` (with usage) and `ToolCallExecutionEvent`, then another
 *   model call while `maxToolIterations` allows, else a `ToolCallSummaryMessage`;
 * - a handoff call → `HandoffMessage` whose `context` is one `ToolCallSummaryMessage` with the
 *   answer's other tool calls and results (empty when there were none).
 *
 * Bad model output (unknown tool, bad JSON, arguments failing the schema) and failing or slow
 * tools become error results the model sees; `respond()` rejects only when the model call fails,
 * a middleware throws, or the turn is aborted.
 *
 * @example
 * const billing = new Agent({ name: 'billing', client, instructions: 'You handle refunds.',
 *   tools: [lookupInvoice], handoffs: ['triage'] });
 * @throws ConfigError for a bad name, repeated tool names or handoffs, or bad options.
 */
export class Agent implements ChatAgent {
  readonly name: string;
  readonly description: string;
  readonly instructions: string | undefined;
  readonly tools: readonly Tool[];
  readonly handoffs: readonly Handoff[];
  readonly maxToolIterations: number;
  readonly outputSchema: z.ZodType | undefined;
  readonly #client: ChatClient;
  readonly #tools: ReadonlyMap<string, Tool>;
  readonly #handoffs: ReadonlyMap<string, Handoff>;
  readonly #middleware: readonly ToolMiddleware[];
  readonly #stream: boolean;
  readonly #timer: Timer;
  readonly #outputJsonSchema: Record<string, unknown> | undefined;

  constructor(options: AgentOptions) {
    const name = checkAgentName(options?.name);
    if (typeof options.client?.create !== 'function') {
      throw new ConfigError(
        `Agent "${name}" needs a \`client\`: a ChatClient such as OpenAIChatClient or ScriptedChatClient.`,
        { path: 'client' },
      );
    }
    this.name = name;
    this.description =
      options.description ?? 'An agent that provides assistance with ability to use tools.';
    this.instructions = options.instructions;
    this.#client = options.client;
    this.#tools = indexTools(name, options.tools ?? []);
    this.tools = [...this.#tools.values()];
    checkDistinctTargets(name, options.handoffs ?? []);
    this.#handoffs = mergeHandoffs(name, this.#tools, new Map(), options.handoffs ?? []);
    this.handoffs = [...this.#handoffs.values()];
    this.maxToolIterations = checkMaxToolIterations(name, options.maxToolIterations ?? 1);
    this.outputSchema = options.outputSchema;
    this.#outputJsonSchema =
      options.outputSchema === undefined ? undefined : outputJsonSchema(name, options.outputSchema);
    this.#middleware = [...(options.middleware ?? [])];
    this.#stream = options.stream ?? false;
    this.#timer = options.timer ?? realTimer;
  }

  async respond(ctx: AgentContext): Promise<AgentResponse> {
    const handoffs =
      ctx.offerHandoffs === false
        ? new Map<string, Handoff>()
        : mergeHandoffs(this.name, this.#tools, this.#handoffs, ctx.handoffs ?? []);
    const output = this.#output(ctx.outputSchema);
    // The window applies to every request of the turn, so it is applied per call below.
    const messages = toModelMessages(ctx.conversation, this.name, {
      ...(this.instructions === undefined ? {} : { instructions: this.instructions }),
      ...(ctx.toolCallFilter === undefined ? {} : { toolCallFilter: ctx.toolCallFilter }),
      ...(ctx.contextWindow === undefined ? {} : { contextWindow: ctx.contextWindow }),
      handoffToolNames: new Set(handoffs.keys()),
    });
    const request = this.#baseRequest(handoffs, ctx.signal, output.json);
    // Ids the thread already uses (indexed once per thread) and ids this turn has used.
    const threadIds = indexThread(ctx.conversation).callIds;
    const usedIds = new Set<string>();
    const inner: AgentEvent[] = [];
    const record = (event: AgentEvent) => {
      inner.push(event);
      ctx.emit(event);
    };
    let last: { calls: FunctionCall[]; results: FunctionExecutionResult[] } | undefined;

    for (let i = 0; i < this.maxToolIterations; i++) {
      const result = await this.#callModel(
        {
          ...request,
          messages: i === 0 ? messages : applyContextWindow(messages, ctx.contextWindow),
        },
        ctx,
      );
      if (result.thought) record(thoughtEvent({ source: this.name, content: result.thought }));
      if (result.toolCalls.length === 0) {
        return { chatMessage: this.#answer(result, output.schema), innerMessages: inner };
      }
      if (result.content) record(thoughtEvent({ source: this.name, content: result.content }));
      const calls = withUniqueIds(result.toolCalls, threadIds, usedIds);
      record(toolCallRequestEvent({ source: this.name, content: calls, usage: result.usage }));
      let chosen: Handoff | undefined;
      const run = composeToolMiddleware(
        [interceptHandoffs(handoffs, (h) => (chosen ??= h)), ...this.#middleware],
        toolExecutor(this.#tools, {
          context: { signal: ctx.signal, sessionId: ctx.sessionId, agent: this.name },
          offered: (request.tools ?? []).map((t) => t.name),
          timer: this.#timer,
        }),
      );
      // Calls start in the model's order, so the handoff middleware sees the first handoff first.
      // Each result is rebuilt so that whatever a middleware returns, it pairs with its call.
      const results = await Promise.all(
        calls.map(async (c): Promise<FunctionExecutionResult> => {
          const r = await run(c);
          return {
            callId: c.id,
            name: c.name,
            content: valueText(r.content),
            isError: r.isError === true,
          };
        }),
      );
      ctx.signal.throwIfAborted();
      record(toolCallExecutionEvent({ source: this.name, content: results }));
      if (chosen !== undefined) {
        return {
          chatMessage: this.#handoff(chosen, handoffs, calls, results),
          innerMessages: inner,
        };
      }
      messages.push(
        { role: 'assistant', content: result.content, toolCalls: calls },
        ...results.map((r): LLMMessage => ({
          role: 'tool',
          toolCallId: r.callId,
          content: r.content,
        })),
      );
      last = { calls, results };
    }
    const { calls, results } = last ?? { calls: [], results: [] };
    return {
      chatMessage: toolCallSummaryMessage({
        source: this.name,
        content: results.map((r) => r.content).join('\n'),
        toolCalls: calls,
        results,
      }),
      innerMessages: inner,
    };
  }

  /** The structured format of this turn: the context's, else the agent's own (JSON Schema cached). */
  #output(schema: z.ZodType | undefined): {
    schema: z.ZodType | undefined;
    json: Record<string, unknown> | undefined;
  } {
    if (schema === undefined || schema === this.outputSchema) {
      return { schema: this.outputSchema, json: this.#outputJsonSchema };
    }
    let json = turnSchemas.get(schema);
    if (json === undefined) {
      json = outputJsonSchema(this.name, schema);
      turnSchemas.set(schema, json);
    }
    return { schema, json };
  }

  #baseRequest(
    handoffs: ReadonlyMap<string, Handoff>,
    signal: AbortSignal,
    outputSchema: Record<string, unknown> | undefined,
  ): ModelRequest {
    const tools = [
      ...this.tools.map((t) => t.schema),
      ...[...handoffs.values()].map((h) => h.schema),
    ];
    const request: ModelRequest = { messages: [], signal };
    if (tools.length > 0) request.tools = tools;
    if (outputSchema !== undefined) request.outputSchema = outputSchema;
    return request;
  }

  #callModel(request: ModelRequest, ctx: AgentContext): Promise<ModelResult> {
    return traceChat(this.#client, request.messages, () => this.#requestModel(request, ctx));
  }

  /** One model call; what the client returns is normalised before anything can commit it. */
  async #requestModel(request: ModelRequest, ctx: AgentContext): Promise<ModelResult> {
    const client = this.#client;
    const origin = `The ChatClient of agent "${this.name}"`;
    if (!this.#stream || client.createStream === undefined) {
      return normaliseModelResult(await client.create(request), origin);
    }
    let result: unknown;
    for await (const item of client.createStream(request)) {
      if (typeof item !== 'string') result = item;
      else if (item !== '') ctx.emit(streamingChunkEvent({ source: this.name, content: item }));
    }
    if (result === undefined) {
      throw new Error(
        `The model stream of agent "${this.name}" ended without a result. The ChatClient's ` +
          'createStream must yield a ModelResult last.',
      );
    }
    return normaliseModelResult(result, origin);
  }

  #answer(result: ModelResult, outputSchema: z.ZodType | undefined): ChatMessage {
    const content = result.content ?? '';
    const base = { source: this.name, usage: result.usage };
    if (outputSchema === undefined) return textMessage({ ...base, content });
    let json: unknown;
    try {
      json = JSON.parse(content);
    } catch {
      const structuredOutputError = 'The answer is not valid JSON.';
      return textMessage({ ...base, content, metadata: { structuredOutputError } });
    }
    const parsed = outputSchema.safeParse(json);
    if (parsed.success) return structuredMessage({ ...base, content: parsed.data });
    const issues = parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
    const structuredOutputError = `The answer does not match the output schema: ${issues.join('; ')}.`;
    return textMessage({ ...base, content, metadata: { structuredOutputError } });
  }

  #handoff(
    handoff: Handoff,
    handoffs: ReadonlyMap<string, Handoff>,
    calls: readonly FunctionCall[],
    results: readonly FunctionExecutionResult[],
  ): ChatMessage {
    const toolCalls = calls.filter((c) => !handoffs.has(c.name));
    const ids = new Set(toolCalls.map((c) => c.id));
    const others = results.filter((r) => ids.has(r.callId));
    const context =
      toolCalls.length === 0
        ? []
        : [
            toolCallSummaryMessage({
              source: this.name,
              content: others.map((r) => r.content).join('\n'),
              toolCalls,
              results: others,
            }),
          ];
    return handoffMessage({
      source: this.name,
      target: handoff.target,
      content: handoff.message,
      context,
    });
  }
}
