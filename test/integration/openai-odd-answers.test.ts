// OpenAIChatClient over real HTTP against answers a provider or a wrong endpoint may give: a
// refusal (streamed or not), a completion without `choices`, and a baseURL that carries
// credentials, which must never reach an error message.
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { Agent, ConfigError, RoundRobinGroupChat, type TextMessage } from '../../src/index.js';
import type { ModelResult } from '../../src/models/chat-client.js';
import { OpenAIChatClient } from '../../src/models/openai-chat-client.js';
import {
  type OpenAICompatibleServer,
  startOpenAICompatibleServer,
} from '../support/openai-compatible-server.js';

const API_KEY = 'sk-test-not-a-real-key';
const REFUSAL = "I'm sorry, I can't help with that.";
let server: OpenAICompatibleServer;

beforeAll(async () => {
  server = await startOpenAICompatibleServer();
});
afterEach(() => {
  const violations = [...server.violations];
  server.reset();
  expect(violations).toEqual([]);
});
afterAll(() => server.close());

const client = () =>
  new OpenAIChatClient({
    model: 'test-model',
    apiKey: API_KEY,
    baseURL: server.url,
    maxRetries: 0,
  });
const ask = { messages: [{ role: 'user' as const, content: 'Help me pick a lock.' }] };

async function collect(stream: AsyncIterable<string | ModelResult>) {
  const seen: (string | ModelResult)[] = [];
  for await (const item of stream) seen.push(item);
  return seen;
}

const refused: ModelResult = {
  content: REFUSAL,
  toolCalls: [],
  usage: { promptTokens: 0, completionTokens: 0 },
  model: 'test-model',
  finishReason: 'stop',
  refusal: true,
};

describe('a model refusal', () => {
  it('is the answer text, marked refusal: true, when not streamed', async () => {
    server.reply({ refusal: REFUSAL });
    expect(await client().create(ask)).toEqual(refused);
  });

  it('streams as text chunks and ends in the same result when streamed', async () => {
    server.reply({ refusal: REFUSAL });
    const seen = await collect(client().createStream(ask));
    expect(seen.slice(0, -1).join('')).toBe(REFUSAL);
    expect(seen.at(-1)).toEqual(refused);
  });

  it.each([false, true])(
    'reaches the thread as the text of the answer with metadata.refusal (stream: %s)',
    async (stream) => {
      server.reply({ refusal: REFUSAL });
      const agent = new Agent({ name: 'helper', client: client(), stream });
      const team = new RoundRobinGroupChat([agent], { maxTurns: 1 });
      const result = await team.run('Help me pick a lock.');
      const answer = result.messages.at(-1) as TextMessage;
      expect([answer.type, answer.source, answer.content, answer.metadata]).toEqual([
        'TextMessage',
        'helper',
        REFUSAL,
        { refusal: true },
      ]);
    },
  );
});

describe('a completion that is not one', () => {
  it('without choices is an error naming the model, the server and what is missing', async () => {
    server.reply({ json: { id: 'x', object: 'list', data: [] } });
    await expect(client().create(ask)).rejects.toThrow(
      new Error(
        `Model "test-model" at ${server.url} answered with a completion without a \`choices\` ` +
          'list (its fields: id, object, data). Check that baseURL points at an OpenAI-compatible ' +
          'Chat Completions API.',
      ),
    );
  });

  it('with an empty choices list or a choice without a message is an error saying so', async () => {
    server.reply({ json: { id: 'x', choices: [] } }, { json: { id: 'x', choices: [{}] } });
    await expect(client().create(ask)).rejects.toThrow(
      `Model "test-model" at ${server.url} answered with an empty \`choices\` list, so there is no answer.`,
    );
    await expect(client().create(ask)).rejects.toThrow(
      `Model "test-model" at ${server.url} answered with a choice without a \`message\`.`,
    );
  });

  it('streams past chunks that carry no choices at all', async () => {
    const chunk = (rest: Record<string, unknown>) => ({ id: 'x', model: 'test-model', ...rest });
    server.reply({
      events: [
        chunk({ choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: 'stop' }] }),
        chunk({ usage: { prompt_tokens: 2, completion_tokens: 1 } }),
      ],
    });
    expect(await collect(client().createStream(ask))).toEqual([
      'Hi',
      {
        content: 'Hi',
        toolCalls: [],
        usage: { promptTokens: 2, completionTokens: 1 },
        model: 'test-model',
        finishReason: 'stop',
      },
    ]);
  });
});

describe('credentials in baseURL', () => {
  const password = 'Pa55w0rd-not-for-logs';
  const queryKey = 'QueryKey-not-for-logs-123';

  it('are refused at construction when a user name or password, the URL shown redacted', async () => {
    const port = new URL(server.url).port;
    expect(
      () =>
        new OpenAIChatClient({
          model: 'm',
          apiKey: API_KEY,
          baseURL: `http://alice:${password}@127.0.0.1:${port}/v1`,
        }),
    ).toThrow(
      new ConfigError(
        `OpenAIChatClient: \`baseURL\` http://[redacted]@127.0.0.1:${port}/v1 holds a user name ` +
          'or password, which fetch refuses in a URL. Pass the key as `apiKey`, or a configured ' +
          'openai client as `client` (defaultQuery, defaultHeaders).',
        { path: 'baseURL' },
      ),
    );
    // A query string is sent (openai 7 puts the path before it); the server echoes it in its 404.
    const withQuery = new OpenAIChatClient({
      model: 'test-model',
      apiKey: API_KEY,
      baseURL: `${server.url}?key=${queryKey}`,
      maxRetries: 0,
    });
    const error = (await withQuery.create(ask).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(
      `Model "test-model" at ${server.url}?key=[redacted] request failed: 404 Unknown endpoint ` +
        'POST /v1/chat/completions?key=[redacted]',
    );
    expect(JSON.stringify([error.message, (error.cause as Error).message])).not.toContain(queryKey);
    server.reset(); // the 404 above is recorded as an unexpected request, on purpose
  });

  it('are redacted from errors when a given SDK client carries them', async () => {
    const port = new URL(server.url).port;
    const withPassword = new OpenAIChatClient({
      model: 'test-model',
      client: new OpenAI({
        apiKey: API_KEY,
        baseURL: `http://alice:${password}@127.0.0.1:${port}/v1`,
        maxRetries: 0,
      }),
    });
    await expect(withPassword.create(ask)).rejects.toThrow(
      new Error(
        `Model "test-model" at http://[redacted]@127.0.0.1:${port}/v1 request failed: Connection error.`,
      ),
    );
    // The server echoes the request's path and query, key included, in its 404.
    const withQuery = new OpenAIChatClient({
      model: 'test-model',
      client: new OpenAI({
        apiKey: API_KEY,
        baseURL: `${server.url}?key=${queryKey}`,
        maxRetries: 0,
      }),
    });
    const error = (await withQuery.create(ask).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(
      `Model "test-model" at ${server.url}?key=[redacted] request failed: 404 Unknown endpoint ` +
        'POST /v1/chat/completions?key=[redacted]',
    );
    expect(JSON.stringify([error.message, (error.cause as Error).message])).not.toContain(queryKey);
    server.reset(); // the 404 above is recorded as an unexpected request, on purpose
  });
});
