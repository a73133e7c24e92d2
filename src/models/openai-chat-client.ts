import type * as OpenAISdk from 'openai';
import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';

import { ConfigError } from '../errors.js';
import { newId } from '../ids.js';
import { redactSecrets } from '../redact.js';
import type { LLMMessage } from '../messages/llm-message.js';
import type { FunctionCall, Usage } from '../messages/message.js';
import type { ChatClient, ModelRequest, ModelResult } from './chat-client.js';
import { fieldOf } from '../unknown-value.js';
import { loadOpenAI } from './load-openai.js';
import { normaliseToolCall } from './model-result.js';
import { checkBaseURL, completionFault, endpointSecrets, whereOf } from './openai-endpoint.js';
import { ToolCallAssembler } from './tool-call-deltas.js';

/** Options of `OpenAIChatClient`. */
export interface OpenAIChatClientOptions {
  /** The model name, e.g. `gpt-4.1-mini`, or whatever the server calls its model. */
  model: string;
  /** @default process.env.OPENAI_API_KEY */
  apiKey?: string;
  /** The server, for Ollama, vLLM, llama.cpp or a gateway. @default process.env.OPENAI_BASE_URL */
  baseURL?: string;
  /** A configured SDK client to use instead of making one (apiKey, baseURL, retries are its own). */
  client?: OpenAI;
  /** Retries on 408, 409, 429 and 5xx, with the SDK's back-off. @default 2 */
  maxRetries?: number;
  /** Per-request timeout in milliseconds. @default 600_000 (the SDK's) */
  timeoutMs?: number;
  temperature?: number;
  maxCompletionTokens?: number;
  /** Let the model call several tools in one answer. @default the server's (true for OpenAI) */
  parallelToolCalls?: boolean;
  /** Ask the server to enforce the output schema strictly (OpenAI's `strict: true`). @default false */
  strictOutputSchema?: boolean;
}

type Params = Omit<ChatCompletionCreateParamsBase, 'stream' | 'stream_options'>;

/**
 * A `ChatClient` on the official `openai` SDK (Chat Completions): tools, parallel tool calls,
 * streaming with usage, structured output and the SDK's retries. Works with any OpenAI-compatible
 * server by setting `baseURL`. The API key is handed to the SDK and never logged or put in an
 * error message by this class. The SDK is loaded on the first request, so a program that imports
 * Baton but never calls OpenAI does not pay for loading it.
 *
 * @example
 * const client = new OpenAIChatClient({ model: 'llama3.2', baseURL: 'http://localhost:11434/v1', apiKey: 'ollama' });
 * @throws ConfigError when no model name or no API key is given.
 */
export class OpenAIChatClient implements ChatClient {
  readonly model: string;
  /** `gen_ai.provider.name` in traces: the OpenAI API, whichever server speaks it. */
  readonly provider = 'openai';
  /** The answer limit given in the options (`max_completion_tokens`), if any. */
  readonly maxCompletionTokens: number | undefined;
  readonly #connect: () => Promise<Connection>;
  #connection: Promise<Connection> | undefined;
  readonly #options: Omit<OpenAIChatClientOptions, 'apiKey' | 'client'>;

  constructor(options: OpenAIChatClientOptions) {
    if (typeof options?.model !== 'string' || options.model === '') {
      throw new ConfigError(
        'OpenAIChatClient needs a `model` name, e.g. { model: "gpt-4.1-mini" }.',
        {
          path: 'model',
        },
      );
    }
    this.model = options.model;
    this.maxCompletionTokens = options.maxCompletionTokens;
    const { apiKey: _key, client: _client, ...settings } = options;
    this.#options = settings;
    this.#connect = connector(options);
  }

  /** The SDK client, made on the first request (the SDK module loads then, once per process). */
  #sdk(): Promise<Connection> {
    this.#connection ??= this.#connect();
    return this.#connection;
  }

  async create(request: ModelRequest): Promise<ModelResult> {
    const completion = await this.#call(request.signal, (client) =>
      client.chat.completions.create(
        { ...this.#params(request), stream: false },
        signalOption(request.signal),
      ),
    );
    // An OpenAI-compatible server may answer 200 with something else (a wrong baseURL, a proxy's
    // page): say what is missing instead of failing on it with a bare TypeError.
    const fault = completionFault(completion);
    if (fault !== undefined) throw new Error(`${await this.#where()} ${fault}`);
    const choice = completion.choices[0]!;
    const message = choice.message;
    const refusal = nonEmptyText(message.refusal);
    const toolCalls: FunctionCall[] = [];
    // Read as loosely as servers send them (the SDK's types say what OpenAI sends).
    const wire: readonly (WireToolCall | undefined)[] = message.tool_calls ?? [];
    for (const call of wire) {
      // Some servers omit `type`; only calls of another declared type (custom tools) are skipped.
      if (call?.type !== undefined && call.type !== 'function') continue;
      toolCalls.push(
        withId(
          normaliseToolCall({
            id: call?.id,
            name: call?.function?.name,
            arguments: call?.function?.arguments,
          }),
        ),
      );
    }
    return withThought(
      {
        content:
          refusal === undefined ? (message.content ?? null) : (message.content ?? '') + refusal,
        toolCalls,
        usage: toUsage(completion.usage),
        ...answeredBy(completion.model, choice.finish_reason),
        ...(refusal === undefined ? {} : { refusal: true }),
      },
      fieldOf(message, 'reasoning_content'),
    );
  }

  async *createStream(request: ModelRequest): AsyncIterable<string | ModelResult> {
    const stream = await this.#call(request.signal, (client) =>
      client.chat.completions.create(
        { ...this.#params(request), stream: true, stream_options: { include_usage: true } },
        signalOption(request.signal),
      ),
    );
    const calls = new ToolCallAssembler();
    let content: string | null = null;
    let thought = '';
    let usage: Usage = { promptTokens: 0, completionTokens: 0 };
    let model: string | undefined;
    let finishReason: string | null | undefined;
    let refused = false;
    try {
      for await (const chunk of stream) {
        if (chunk.usage) usage = toUsage(chunk.usage);
        if (chunk.model) model = chunk.model;
        // Some servers send chunks without `choices` (usage only); they carry no text.
        const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
        finishReason = choice?.finish_reason ?? finishReason;
        const delta = choice?.delta;
        if (delta == null) continue;
        // Reasoning servers (DeepSeek, vLLM) stream their thinking in a field OpenAI's types lack.
        const reasoning = fieldOf(delta, 'reasoning_content');
        if (typeof reasoning === 'string') thought += reasoning;
        for (const piece of delta.tool_calls ?? []) calls.add(piece);
        // A refusal is the answer's text, streamed like any other (see `ModelResult.refusal`).
        for (const text of [delta.content, nonEmptyText(delta.refusal)]) {
          if (typeof text !== 'string' || text === '') continue;
          if (text !== delta.content) refused = true;
          content = (content ?? '') + text;
          yield text;
        }
      }
    } catch (error) {
      throw this.#wrap(error, request.signal, await this.#sdk());
    }
    const toolCalls = calls.calls().map((call) => withId(normaliseToolCall(call)));
    const answer = { content, toolCalls, usage, ...answeredBy(model, finishReason) };
    yield withThought(refused ? { ...answer, refusal: true } : answer, thought);
  }

  #params(request: ModelRequest): Params {
    const params: Params = { model: this.model, messages: request.messages.map(toWire) };
    const options = this.#options;
    if (options.temperature !== undefined) params.temperature = options.temperature;
    if (options.maxCompletionTokens !== undefined) {
      params.max_completion_tokens = options.maxCompletionTokens;
    }
    if (request.tools !== undefined && request.tools.length > 0) {
      params.tools = request.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }));
      if (options.parallelToolCalls !== undefined) {
        params.parallel_tool_calls = options.parallelToolCalls;
      }
    }
    if (request.outputSchema !== undefined) {
      params.response_format = {
        type: 'json_schema',
        json_schema: {
          name: 'output',
          schema: request.outputSchema as Record<string, unknown>,
          strict: options.strictOutputSchema ?? false,
        },
      };
    }
    return params;
  }

  async #call<T>(
    signal: AbortSignal | undefined,
    send: (client: OpenAI) => Promise<T>,
  ): Promise<T> {
    const connection = await this.#sdk();
    try {
      return await send(connection.client);
    } catch (error) {
      throw this.#wrap(error, signal, connection);
    }
  }

  /**
   * Keeps the provider's message and names the model; aborts stay as they are. The message is
   * redacted (the client's key, any Bearer token) and the SDK's error is not kept as the cause,
   * since some gateways repeat the Authorization header in their error bodies.
   */
  #wrap(error: unknown, signal: AbortSignal | undefined, { sdk, client }: Connection): unknown {
    if (signal?.aborted || error instanceof sdk.APIUserAbortError) return error;
    if (!(error instanceof sdk.APIError)) return error;
    // A server may echo the request's path, query key included ("Unknown endpoint /v1?key=…").
    const detail = redactSecrets(error.message, endpointSecrets(client));
    const cause = Object.assign(new Error(detail), {
      name: error.name,
      ...(error.status === undefined ? {} : { status: error.status }),
    });
    // Name where the request went: "Connection error." alone does not say which server failed.
    return new Error(`${whereOf(this.model, client)} request failed: ${detail}`, { cause });
  }

  /** `Model "<model>" at <baseURL>`, credentials redacted, for error messages. */
  async #where(): Promise<string> {
    return whereOf(this.model, (await this.#sdk()).client);
  }
}

/** The loaded SDK module and the client made with it. */
interface Connection {
  readonly sdk: typeof OpenAISdk;
  readonly client: OpenAI;
}

/**
 * Checks the options now (a missing key is a ConfigError at construction) and returns how to
 * connect later: the given client, or one made from the key, the base URL and the retry options.
 */
function connector(options: OpenAIChatClientOptions): () => Promise<Connection> {
  const given = options.client;
  if (given !== undefined) return async () => ({ sdk: await loadOpenAI(), client: given });
  const apiKey = options.apiKey ?? process.env.OPENAI_API_KEY;
  if (!apiKey) {
    throw new ConfigError(
      'OpenAIChatClient needs an API key: pass `apiKey` or set OPENAI_API_KEY. Local servers ' +
        'that ignore keys accept any non-empty value.',
      { path: 'apiKey' },
    );
  }
  const baseURL = options.baseURL ?? process.env.OPENAI_BASE_URL;
  if (baseURL) checkBaseURL(baseURL);
  const settings = {
    apiKey,
    ...(baseURL ? { baseURL } : {}),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  };
  return async () => {
    const sdk = await loadOpenAI();
    return { sdk, client: new sdk.default(settings) };
  };
}

/** `value` when it is a non-empty string. */
function nonEmptyText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function toWire(message: LLMMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content, ...nameOf(message.name) };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) {
        return { role: 'assistant', content: message.content ?? '', ...nameOf(message.name) };
      }
      return {
        role: 'assistant',
        content: message.content,
        ...nameOf(message.name),
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        })),
      };
    }
  }
}

/** A tool call as OpenAI-compatible servers really send it (vLLM, Ollama, gateways). */
interface WireToolCall {
  id?: unknown;
  type?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
}

/** The call with a generated id when the server sent none (a result pairs with its call by id). */
function withId(call: FunctionCall): FunctionCall {
  return call.id === '' ? { ...call, id: newId('call_') } : call;
}

function nameOf(name: string | undefined): { name?: string } {
  return name === undefined ? {} : { name };
}

function signalOption(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}

function toUsage(usage: OpenAI.CompletionUsage | null | undefined): Usage {
  return {
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
  };
}

/** The answering model and finish reason, when the server sent them. */
function answeredBy(
  model: string | undefined,
  finishReason: string | null | undefined,
): Pick<ModelResult, 'model' | 'finishReason'> {
  return {
    ...(model ? { model } : {}),
    ...(finishReason ? { finishReason } : {}),
  };
}

function withThought(result: ModelResult, thought: unknown): ModelResult {
  return typeof thought === 'string' && thought !== '' ? { ...result, thought } : result;
}
