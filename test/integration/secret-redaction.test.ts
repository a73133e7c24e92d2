import { inspect } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Agent, HandoffBuilder, OpenAIChatClient } from '../../src/index.js';
import {
  type OpenAICompatibleServer,
  startOpenAICompatibleServer,
} from '../support/openai-compatible-server.js';

const API_KEY = 'sk-proj-Secret0123456789abcdefXYZ';
let server: OpenAICompatibleServer;

beforeAll(async () => {
  server = await startOpenAICompatibleServer({ apiKey: API_KEY });
});
afterAll(() => server.close());

/** A gateway that repeats the request's Authorization header in its 401 body. */
const echoingGateway = () =>
  server.reply({
    status: 401,
    type: 'invalid_request_error',
    message: `Invalid credentials. Received header Authorization: Bearer ${API_KEY}`,
  });

const client = () =>
  new OpenAIChatClient({
    model: 'test-model',
    apiKey: API_KEY,
    baseURL: server.url,
    maxRetries: 0,
  });

describe('API keys in provider errors', () => {
  it('are redacted from the error OpenAIChatClient throws, its cause included', async () => {
    echoingGateway();
    const error: unknown = await client()
      .create({ messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain('Authorization: Bearer [redacted]');
    expect(message).not.toContain(API_KEY);
    expect(inspect(error, { depth: 10 })).not.toContain(API_KEY);
    expect(inspect(error, { depth: 10 })).not.toContain(API_KEY.slice(8));
  });

  it('are redacted from the error a run rejects with', async () => {
    echoingGateway();
    const workflow = new HandoffBuilder({
      participants: [new Agent({ name: 'helper', client: client() })],
    })
      .coordinator('helper')
      .build();
    const error: unknown = await workflow.run('hi').catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^Agent "helper" failed in session "default": /);
    expect(inspect(error, { depth: 10 })).not.toContain(API_KEY);
  });

  it('are redacted when an agent forwards a Bearer token of some other client', async () => {
    const workflow = new HandoffBuilder({
      participants: [
        {
          name: 'helper',
          description: 'a custom agent',
          respond: async () => {
            throw new Error('upstream 401: authorization: Bearer eyJhbGciOi.J9.abc-def_123');
          },
        },
      ],
    })
      .coordinator('helper')
      .build();
    const error: unknown = await workflow.run('hi').catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'Agent "helper" failed in session "default": upstream 401: authorization: Bearer [redacted]',
    );
  });
});

describe('a model that cannot be reached', () => {
  it('names the URL and the model in the error, not only "Connection error."', async () => {
    const unreachable = new OpenAIChatClient({
      model: 'far-model',
      apiKey: API_KEY,
      baseURL: 'http://127.0.0.1:9/v1',
      maxRetries: 0,
    });
    const error: unknown = await unreachable
      .create({ messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'Model "far-model" at http://127.0.0.1:9/v1 request failed: Connection error.',
    );
  });
});
