import type * as AnthropicProvider from '@ai-sdk/anthropic';

import { ConfigError } from '../errors.js';
import { redactSecrets, redactUrl, urlSecrets } from '../redact.js';
import { AiSdkChatClient } from './ai-sdk-chat-client.js';
import type { ChatClient } from './chat-client.js';
import { loadOpenAI } from './load-openai.js';
import { OpenAIChatClient } from './openai-chat-client.js';

/** The model the environment names, or why it names none. */
export type EnvironmentModel =
  | {
      client: ChatClient;
      /** One line that says which model is used and where, e.g. for a banner. */
      description: string;
    }
  | {
      client: undefined;
      /** Set when a key is there but its provider package is not installed: what to install. */
      missing?: string;
    };

/** The default models: small ones, as a demo needs. `BATON_MODEL` names another. */
export const DEFAULT_OPENAI_MODEL = 'gpt-4.1-mini';
export const DEFAULT_ANTHROPIC_MODEL = 'claude-haiku-4-5';

/**
 * The chat model the environment asks for, as the demo and `baton run` use it:
 *
 * - `OPENAI_API_KEY` or `OPENAI_BASE_URL` (any OpenAI-compatible server: Ollama, vLLM…) with
 *   `openai` installed: `OpenAIChatClient`;
 * - else `ANTHROPIC_API_KEY` with `@ai-sdk/anthropic` installed: `AiSdkChatClient` on
 *   `anthropic(model)` (`ANTHROPIC_BASE_URL` is honoured);
 * - else none (`missing` says what to install when the key is set without the package).
 *
 * `BATON_MODEL` names the model (defaults `gpt-4.1-mini`, `claude-haiku-4-5`).
 *
 * @example const { client } = await modelFromEnvironment(); // undefined when none is set
 */
export async function modelFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
): Promise<EnvironmentModel> {
  let missing: string | undefined;
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) {
    // The SDK is an optional peer: without it, Claude may still be there; else say what to install.
    const installed = await loadOpenAI().then(
      () => true,
      (error: unknown) => (error instanceof ConfigError ? false : Promise.reject(error)),
    );
    if (installed) return openAIFromEnvironment(env);
    const key = env.OPENAI_API_KEY ? 'OPENAI_API_KEY' : 'OPENAI_BASE_URL';
    missing = `${key} is set: run \`npm install openai\``;
  }
  const apiKey = env.ANTHROPIC_API_KEY;
  if (apiKey) {
    const claude = await anthropicFromEnvironment(env, apiKey);
    if (claude.client !== undefined || missing === undefined) return claude;
  }
  return missing === undefined ? { client: undefined } : { client: undefined, missing };
}

const CHANGE = '(set BATON_MODEL to change it)';

/** `OpenAIChatClient` on `OPENAI_API_KEY` / `OPENAI_BASE_URL`, the `openai` SDK installed. */
function openAIFromEnvironment(env: NodeJS.ProcessEnv): EnvironmentModel {
  const model = env.BATON_MODEL || DEFAULT_OPENAI_MODEL;
  const baseURL = env.OPENAI_BASE_URL || undefined;
  // Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp) accept any key.
  const client = new OpenAIChatClient({
    model,
    apiKey: env.OPENAI_API_KEY || 'unused',
    ...(baseURL === undefined ? {} : { baseURL }),
  });
  const where =
    baseURL === undefined
      ? 'the OpenAI API'
      : redactSecrets(redactUrl(baseURL), urlSecrets(baseURL));
  return { client, description: `Using model "${model}" at ${where} ${CHANGE}.` };
}

/** Claude through `@ai-sdk/anthropic` on `ANTHROPIC_API_KEY`, or what to install for it. */
async function anthropicFromEnvironment(
  env: NodeJS.ProcessEnv,
  apiKey: string,
): Promise<EnvironmentModel> {
  let provider: typeof AnthropicProvider;
  try {
    provider = await import('@ai-sdk/anthropic');
  } catch {
    return {
      client: undefined,
      missing: 'ANTHROPIC_API_KEY is set: run `npm install @ai-sdk/anthropic`',
    };
  }
  const model = env.BATON_MODEL || DEFAULT_ANTHROPIC_MODEL;
  const baseURL = env.ANTHROPIC_BASE_URL || undefined;
  const anthropic = provider.createAnthropic({
    apiKey,
    ...(baseURL === undefined ? {} : { baseURL }),
  });
  const where = baseURL === undefined ? 'Anthropic' : redactUrl(baseURL);
  return {
    client: new AiSdkChatClient(anthropic(model), { secrets: [apiKey] }),
    description: `Using model "${model}" at ${where} through @ai-sdk/anthropic ${CHANGE}.`,
  };
}
