import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';

import { ConfigError } from '../errors.js';
import type { FunctionCall, Usage } from '../messages/message.js';
import { fieldOf } from '../unknown-value.js';
import { untilAborted } from '../until-aborted.js';
import { configuredSecrets, providerFailure } from './ai-sdk-errors.js';
import { callOptions, finishReasonOf, usageOf, type CallSettings } from './ai-sdk-prompt.js';
import type { ChatClient, ModelRequest, ModelResult } from './chat-client.js';
import { normaliseToolCall } from './model-result.js';

/**
 * An AI SDK language model, as a provider makes it (`anthropic('claude-sonnet-4-5')`): the `ai`
 * package's `AiSdkLanguageModel` (of specification v4, v3 or v2), or a model id string for the AI
 * SDK's default provider (the AI Gateway). Written out here, so that the type needs neither `ai`
 * nor `@ai-sdk/provider` installed.
 */
export type AiSdkLanguageModel =
  | string
  | {
      readonly specificationVersion: string;
      readonly provider: string;
      readonly modelId: string;
    };

/** Options of `AiSdkChatClient`. */
export interface AiSdkChatClientOptions {
  /** Passed to the provider with every call, e.g. `{ anthropic: { thinking: { … } } }`. */
  providerOptions?: Record<string, Record<string, unknown>>;
  temperature?: number;
  maxOutputTokens?: number;
  /** Retries of a call the provider marks retryable (429, 5xx), before any output. @default 2 */
  maxRetries?: number;
  /**
   * More values to redact from errors. The keys the provider's model was configured with (its
   * credential headers and base URL, given in code or read from the environment) and every
   * `…_API_KEY`, `…_TOKEN`, `…_SECRET` of the environment are redacted anyway.
   */
  secrets?: string[];
}

/**
 * A `ChatClient` for any AI SDK language model: `@ai-sdk/anthropic`, `@ai-sdk/google`,
 * `@ai-sdk/amazon-bedrock`, `@ai-sdk/mistral`, `ollama-ai-provider`, `@ai-sdk/openai-compatible`…
 * Text, streaming, tool calls, structured output, usage and abort work as with
 * `OpenAIChatClient`. It calls the model's `doGenerate`/`doStream` once per request: the tools
 * stay Baton's (the AI SDK runs none), and no AI SDK loop runs in between. The `ai` package (an
 * optional peer) is loaded only for a model given as an id string or of an older specification.
 *
 * Errors name the provider and the model, and never contain a key: see `secrets`.
 *
 * @example new AiSdkChatClient(anthropic('claude-sonnet-4-5'))
 * @throws ConfigError when `model` is not an AI SDK language model or model id.
 */
export class AiSdkChatClient implements ChatClient {
  readonly model: string;
  /** The provider's name (`anthropic` for the AI SDK's `anthropic.messages`), for traces. */
  readonly provider: string;
  /** The AI SDK's provider id, e.g. `anthropic.messages`. */
  readonly providerId: string;
  readonly #given: AiSdkLanguageModel;
  #resolved: Promise<LanguageModelV4> | undefined;
  readonly #settings: CallSettings;
  readonly #maxRetries: number;
  readonly #secrets: readonly string[];

  constructor(model: AiSdkLanguageModel, options: AiSdkChatClientOptions = {}) {
    if (typeof model === 'string') {
      if (model === '') throw notAModel(model);
      this.model = model;
      this.providerId = 'gateway';
    } else if (
      typeof model === 'object' &&
      model !== null &&
      typeof model.modelId === 'string' &&
      typeof model.provider === 'string'
    ) {
      this.model = model.modelId;
      this.providerId = model.provider;
    } else {
      throw notAModel(model);
    }
    this.provider = this.providerId.split('.')[0] || this.providerId;
    this.#given = model;
    this.#settings = {
      providerOptions: options.providerOptions as CallSettings['providerOptions'],
      temperature: options.temperature,
      maxOutputTokens: options.maxOutputTokens,
    };
    this.#maxRetries = options.maxRetries ?? 2;
    this.#secrets = options.secrets ?? [];
  }

  async create(request: ModelRequest): Promise<ModelResult> {
    const { signal } = request;
    const model = await this.#model();
    const options = this.#options(request);
    const result = await this.#retrying(signal, () => model.doGenerate(options));
    let content: string | null = null;
    let thought = '';
    const toolCalls: FunctionCall[] = [];
    for (const part of result.content) {
      if (part.type === 'text') content = (content ?? '') + part.text;
      else if (part.type === 'reasoning') thought += part.text;
      else if (part.type === 'tool-call' && part.providerExecuted !== true) {
        toolCalls.push(toCall(part));
      }
    }
    if (request.outputSchema !== undefined && result.structuredOutputText !== undefined) {
      content = result.structuredOutputText;
    }
    return answer(content, toolCalls, usageOf(result.usage), {
      thought,
      model: result.response?.modelId,
      finishReason: finishReasonOf(result.finishReason),
    });
  }

  async *createStream(request: ModelRequest): AsyncIterable<string | ModelResult> {
    const { signal } = request;
    const model = await this.#model();
    const options = this.#options(request);
    const { stream } = await this.#retrying(signal, () => model.doStream(options));
    const reader = stream.getReader();
    let content: string | null = null;
    let thought = '';
    const toolCalls: FunctionCall[] = [];
    let usage: Usage = { promptTokens: 0, completionTokens: 0 };
    let answeredBy: string | undefined;
    let finishReason: string | undefined;
    try {
      for (;;) {
        let next: Awaited<
          ReturnType<ReadableStreamDefaultReader<LanguageModelV4StreamPart>['read']>
        >;
        try {
          // A provider (or a mock) that does not watch the signal must not keep the call alive.
          next = await untilAborted(reader.read(), signal);
        } catch (error) {
          throw await this.#failure(error, signal);
        }
        if (next.done) break;
        const part = next.value;
        switch (part.type) {
          case 'text-delta':
            if (part.delta === '') break;
            content = (content ?? '') + part.delta;
            yield part.delta;
            break;
          case 'reasoning-delta':
            thought += part.delta;
            break;
          case 'tool-call':
            if (part.providerExecuted !== true) toolCalls.push(toCall(part));
            break;
          case 'response-metadata':
            if (part.modelId !== undefined) answeredBy = part.modelId;
            break;
          case 'finish':
            usage = usageOf(part.usage);
            finishReason = finishReasonOf(part.finishReason);
            break;
          case 'error':
            throw await this.#failure(part.error, signal);
          default:
            // Block starts and ends, tool input deltas (the tool-call part has the whole input),
            // provider-executed results, files, sources, warnings, pings and raw chunks.
            break;
        }
      }
    } finally {
      // Cancels the provider's request when the caller stops early, aborts or the stream failed.
      reader.cancel().catch(() => {});
    }
    yield answer(content, toolCalls, usage, { thought, model: answeredBy, finishReason });
  }

  #options(request: ModelRequest): LanguageModelV4CallOptions {
    const options = callOptions(request, this.#settings);
    if (request.signal !== undefined) options.abortSignal = request.signal;
    return options;
  }

  /** The model as a `LanguageModelV4`: loads `ai` only to adapt an id string or an older model. */
  #model(): Promise<LanguageModelV4> {
    this.#resolved ??= resolveModel(this.#given).catch((error: unknown) => {
      this.#resolved = undefined;
      throw error;
    });
    return this.#resolved;
  }

  /** `call`, again after a back-off while it fails with an error the provider marks retryable. */
  async #retrying<T>(signal: AbortSignal | undefined, call: () => PromiseLike<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      try {
        return await untilAborted(call(), signal);
      } catch (error) {
        const retryable = fieldOf(error, 'isRetryable') === true;
        if (signal?.aborted || !retryable || attempt >= this.#maxRetries) {
          throw await this.#failure(error, signal);
        }
      }
      await untilAborted(new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt)), signal);
    }
  }

  /**
   * An abort stays the signal's reason; anything else becomes a provider failure with every key
   * redacted: the `secrets` given, and those the provider's model was configured with.
   */
  async #failure(error: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    if (signal?.aborted) return signal.reason;
    const model = (await this.#resolved?.catch(() => undefined)) ?? this.#given;
    const secrets = [...this.#secrets, ...(await configuredSecrets(model))];
    return providerFailure(error, { provider: this.providerId, model: this.model }, secrets);
  }
}

/** True for a model of the AI SDK's specification v4, which Baton calls as it is. */
function isV4(model: AiSdkLanguageModel): model is LanguageModelV4 {
  return typeof model === 'object' && model.specificationVersion === 'v4';
}

async function resolveModel(model: AiSdkLanguageModel): Promise<LanguageModelV4> {
  if (isV4(model)) return model;
  let ai: { resolveLanguageModel(model: AiSdkLanguageModel): LanguageModelV4 };
  try {
    ai = (await import('ai/internal')) as unknown as typeof ai;
  } catch (error) {
    throw new ConfigError(
      'AiSdkChatClient needs the `ai` package for a model id string or a model of an older AI ' +
        'SDK specification. Run `npm install ai`.',
      { cause: error },
    );
  }
  return ai.resolveLanguageModel(model);
}

function toCall(part: { toolCallId: string; toolName: string; input: string }): FunctionCall {
  return normaliseToolCall({ id: part.toolCallId, name: part.toolName, arguments: part.input });
}

function answer(
  content: string | null,
  toolCalls: FunctionCall[],
  usage: Usage,
  extra: { thought: string; model: string | undefined; finishReason: string | undefined },
): ModelResult {
  const result: ModelResult = { content, toolCalls, usage };
  if (extra.thought !== '') result.thought = extra.thought;
  if (extra.model !== undefined && extra.model !== '') result.model = extra.model;
  if (extra.finishReason !== undefined) result.finishReason = extra.finishReason;
  return result;
}

function notAModel(model: unknown): ConfigError {
  return new ConfigError(
    `AiSdkChatClient needs an AI SDK language model, e.g. anthropic('claude-sonnet-4-5') from ` +
      `@ai-sdk/anthropic, or a model id string; got ${model === '' ? 'an empty string' : typeof model}.`,
    { path: 'model' },
  );
}
