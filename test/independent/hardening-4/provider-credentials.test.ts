// Issue 43, item 4: an API key given to an AI SDK provider in code (not in the environment, not
// in `secrets`) and echoed by the server appeared in Baton's error; so did a `user:password@` or a
// `?key=` of the provider's base URL. Every credential the provider was configured with is kept
// out of the message, the stack and every cause.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AiSdkChatClient } from '../../../src/index.js';

const KEY = 'given-in-code-Hq4Zt8Wn2Lp6';
const PASSWORD = 'pw-Rr5Kd9Mx3';
const QUERY_KEY = 'q-Vb7Nc2Jy8';

/** Answers every request 401, repeating its headers and its address in the body. */
let server: Server;
let port = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    const echo = `denied ${req.url} ${JSON.stringify(req.headers)}`;
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: echo } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Everything of `error` a caller or a log could show. */
function shown(error: unknown): string {
  const parts: string[] = [];
  let at: unknown = error;
  for (let depth = 0; at !== undefined && at !== null && depth < 10; depth++) {
    if (at instanceof Error) parts.push(at.message, at.stack ?? '', JSON.stringify(at));
    else parts.push(String(at), JSON.stringify(at));
    at = (at as { cause?: unknown }).cause;
  }
  return parts.join('\n');
}

async function failure(client: AiSdkChatClient): Promise<unknown> {
  return client.create({ messages: [{ role: 'user', content: 'hello' }] }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('credentials an AI SDK provider was configured with, in its errors', () => {
  it('an Anthropic key given in code and echoed by the server', async () => {
    const anthropic = createAnthropic({ apiKey: KEY, baseURL: `http://127.0.0.1:${port}/v1` });
    const error = await failure(new AiSdkChatClient(anthropic('claude-x'), { maxRetries: 0 }));
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /^Model "claude-x" of provider "anthropic\.messages" at http:\/\/127\.0\.0\.1:\d+\/v1\/messages failed \(HTTP 401\): /,
    );
    expect(shown(error)).toContain('"x-api-key":"[redacted]"');
    expect(shown(error)).not.toContain(KEY);
  });

  it('an OpenAI-compatible key given in code, and a ?key= of the base URL', async () => {
    const local = createOpenAICompatible({
      name: 'local',
      apiKey: KEY,
      baseURL: `http://127.0.0.1:${port}/v1`,
      queryParams: { key: QUERY_KEY },
    });
    const error = await failure(new AiSdkChatClient(local('m'), { maxRetries: 0 }));
    expect((error as Error).message).toMatch(
      /^Model "m" of provider "local\.chat" at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions\?key=\[redacted\] failed \(HTTP 401\): /,
    );
    const text = shown(error);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(QUERY_KEY);
  });

  it('a user:password@ of the base URL (which fetch refuses before sending)', async () => {
    const local = createOpenAICompatible({
      name: 'local',
      apiKey: KEY,
      baseURL: `http://admin:${PASSWORD}@127.0.0.1:${port}/v1`,
    });
    const error = await failure(new AiSdkChatClient(local('m'), { maxRetries: 0 }));
    expect((error as Error).message).toMatch(/^Model "m" of provider "local\.chat"/);
    const text = shown(error);
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(KEY);
  });
});
