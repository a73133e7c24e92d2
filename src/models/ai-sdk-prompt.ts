// How a Baton `ModelRequest` becomes the call options of an AI SDK language model (the
// `LanguageModelV4` specification of `@ai-sdk/provider`), and how its answer becomes a
// `ModelResult`. Types only: nothing here loads the AI SDK.
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FinishReason,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultPart,
  LanguageModelV4Usage,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';

import type { LLMMessage } from '../messages/llm-message.js';
import type { Usage } from '../messages/message.js';
import type { ModelRequest } from './chat-client.js';

/** The settings of `AiSdkChatClient` that go into every call. */
export interface CallSettings {
  providerOptions?: SharedV4ProviderOptions | undefined;
  temperature?: number | undefined;
  maxOutputTokens?: number | undefined;
}

/** The call options for `request` (without the abort signal, which the client adds). */
export function callOptions(
  request: ModelRequest,
  settings: CallSettings,
): LanguageModelV4CallOptions {
  const options: LanguageModelV4CallOptions = { prompt: toPrompt(request.messages) };
  if (request.tools !== undefined && request.tools.length > 0) {
    options.tools = request.tools.map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description,
      inputSchema: t.parameters,
    }));
    options.toolChoice = { type: 'auto' };
  }
  if (request.outputSchema !== undefined) {
    options.responseFormat = {
      type: 'json',
      schema: request.outputSchema as NonNullable<
        Extract<LanguageModelV4CallOptions['responseFormat'], { type: 'json' }>['schema']
      >,
      name: 'output',
    };
  }
  if (settings.temperature !== undefined) options.temperature = settings.temperature;
  if (settings.maxOutputTokens !== undefined) options.maxOutputTokens = settings.maxOutputTokens;
  if (settings.providerOptions !== undefined) options.providerOptions = settings.providerOptions;
  return options;
}

/**
 * The messages as an AI SDK prompt. A `name` (set by hand; Baton's views put the speaker in the
 * text) becomes a `[name]: ` prefix, since most providers have no such field. An assistant
 * message with neither text nor calls is left out (Anthropic refuses empty text), and the results
 * that follow one assistant message go together in one `tool` message, each named after its call.
 */
export function toPrompt(messages: readonly LLMMessage[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  const toolNames = new Map<string, string>();
  let results: LanguageModelV4ToolResultPart[] | undefined;
  for (const message of messages) {
    if (message.role === 'tool') {
      const part: LanguageModelV4ToolResultPart = {
        type: 'tool-result',
        toolCallId: message.toolCallId,
        toolName: toolNames.get(message.toolCallId) ?? 'unknown_tool',
        output: { type: 'text', value: message.content },
      };
      if (results === undefined) {
        results = [part];
        prompt.push({ role: 'tool', content: results });
      } else {
        results.push(part);
      }
      continue;
    }
    results = undefined;
    const converted = convert(message, toolNames);
    if (converted !== undefined) prompt.push(converted);
  }
  return prompt;
}

function convert(
  message: Exclude<LLMMessage, { role: 'tool' }>,
  toolNames: Map<string, string>,
): LanguageModelV4Message | undefined {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: [{ type: 'text', text: named(message) }] };
    case 'assistant': {
      const content: Extract<LanguageModelV4Message, { role: 'assistant' }>['content'] = [];
      const text = named(message);
      if (text !== '') content.push({ type: 'text', text });
      for (const call of message.toolCalls ?? []) {
        toolNames.set(call.id, call.name);
        content.push({
          type: 'tool-call',
          toolCallId: call.id,
          toolName: call.name,
          input: inputOf(call.arguments),
        });
      }
      return content.length === 0 ? undefined : { role: 'assistant', content };
    }
  }
}

function named(message: { content: string | null; name?: string }): string {
  const text = message.content ?? '';
  return message.name === undefined || text === '' ? text : `[${message.name}]: ${text}`;
}

/**
 * A call's arguments as the object providers expect. Arguments that are not a JSON object (a
 * model may send anything; the tool answered them with an error) are sent as `{}`.
 */
function inputOf(args: string): unknown {
  try {
    const value: unknown = JSON.parse(args);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** Token counts as Baton keeps them (a provider may not report them: 0). */
export function usageOf(usage: LanguageModelV4Usage | undefined): Usage {
  return {
    promptTokens: usage?.inputTokens?.total ?? 0,
    completionTokens: usage?.outputTokens?.total ?? 0,
  };
}

// The AI SDK's unified reasons, named as Baton's other clients (and OpenAI) name them.
const FINISH_REASONS: Record<LanguageModelV4FinishReason['unified'], string> = {
  stop: 'stop',
  length: 'length',
  'content-filter': 'content_filter',
  'tool-calls': 'tool_calls',
  error: 'error',
  interrupted: 'interrupted',
  other: 'other',
};

/** The finish reason in Baton's words (`stop`, `tool_calls`, `length`, `content_filter`…). */
export function finishReasonOf(
  reason: LanguageModelV4FinishReason | undefined,
): string | undefined {
  if (reason === undefined) return undefined;
  return FINISH_REASONS[reason.unified] ?? reason.raw ?? reason.unified;
}
