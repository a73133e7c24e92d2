// Independent black-box tests of API.md §11 with OpenAIChatClient against a local OpenAI-compatible
// server (issue 16): chat attributes from the wire, error status, no API key, content capture.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  Agent,
  MaxMessageTermination,
  OpenAIChatClient,
  RoundRobinGroupChat,
} from '../../../src/index.js';
import { ERROR, everything, one, parentId, type Sdk, startSdk } from './otel.js';

const KEY = 'sk-test-SECRET';

type Reply = { text: string; model?: string } | { status: number; message: string };
const replies: Reply[] = [];
const seenAuth: string[] = [];
let server: Server;
let baseURL: string;
let sdk: Sdk;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      seenAuth.push(String(req.headers.authorization));
      const body = JSON.parse(raw) as { model: string; stream?: boolean };
      const reply = replies.shift() ?? { status: 500, message: 'no reply queued' };
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: { message: reply.message, type: 'invalid_request_error' } }),
        );
        return;
      }
      const model = reply.model ?? `${body.model}-2025-01-01`;
      const usage = { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 };
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: object, finish: string | null, extra: object = {}) =>
          `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
        res.write(chunk({ role: 'assistant', content: reply.text }, null));
        res.write(chunk({}, 'stop'));
        res.write(
          `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model, choices: [], usage })}\n\n`,
        );
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 1,
          model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: reply.text },
              finish_reason: 'stop',
            },
          ],
          usage,
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  sdk = startSdk();
});
afterAll(async () => {
  await sdk.stop();
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  sdk.exporter.reset();
  replies.length = 0;
});
afterEach(() => {
  delete process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
});

function solo() {
  const client = new OpenAIChatClient({ model: 'gpt-test', apiKey: KEY, baseURL });
  const helper = new Agent({ name: 'helper', instructions: 'Be brief.', client });
  return new RoundRobinGroupChat([helper], {
    name: 'solo',
    terminationCondition: new MaxMessageTermination(2),
  });
}

describe('OpenAIChatClient spans', () => {
  it('a chat span from the wire: provider openai, request and response model, usage, finish reasons', async () => {
    replies.push({ text: 'Hello there.' });
    const result = await solo().session('oa-1').run('Say hello.');
    expect(result.status).toBe('terminated');
    expect(seenAuth).toContain(`Bearer ${KEY}`);
    const spans = sdk.spans();
    const chat = one(spans, 'chat gpt-test');
    expect(parentId(chat)).toBe(one(spans, 'invoke_agent helper').spanContext().spanId);
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.response.model': 'gpt-test-2025-01-01',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 4,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(chat.status.code).not.toBe(ERROR);
  });

  it('no span attribute, event or status ever holds the API key', async () => {
    replies.push({ text: 'ok' });
    process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = 'true';
    await solo().session('oa-2').run(`Say ok.`);
    replies.push({ status: 401, message: `Incorrect API key provided: ${KEY}` });
    await solo()
      .session('oa-3')
      .run('again')
      .catch(() => undefined);
    const all = everything(sdk.spans());
    expect(all).toContain('chat gpt-test');
    expect(all).not.toContain('SECRET');
    expect(all).not.toContain('sk-test');
  });

  it('a failing model call gives ERROR and error.type on the chat span', async () => {
    replies.push({ status: 400, message: 'bad request' });
    await expect(solo().session('oa-4').run('hi')).rejects.toThrow();
    const chat = one(sdk.spans(), 'chat gpt-test');
    expect(chat.status.code).toBe(ERROR);
    const type = chat.attributes['error.type'];
    expect(typeof type).toBe('string');
    expect((type as string).length).toBeGreaterThan(0);
  });

  it('no message content without OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true', async () => {
    process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = 'false';
    replies.push({ text: 'Secretless answer.' });
    await solo().session('oa-5').run('Private question.');
    const all = everything(sdk.spans());
    expect(all).not.toContain('gen_ai.input.messages');
    expect(all).not.toContain('gen_ai.output.messages');
    expect(all).not.toContain('Private question.');
    expect(all).not.toContain('Secretless answer.');
  });

  it('with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true the chat span holds input and output messages', async () => {
    process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = 'true';
    replies.push({ text: 'Captured answer.' });
    await solo().session('oa-6').run('Captured question.');
    const chat = one(sdk.spans(), 'chat gpt-test');
    const input = chat.attributes['gen_ai.input.messages'];
    const output = chat.attributes['gen_ai.output.messages'];
    expect(typeof input).toBe('string');
    expect(typeof output).toBe('string');
    expect(input as string).toContain('Captured question.');
    expect(output as string).toContain('Captured answer.');
    expect(output as string).not.toContain('Captured question.');
    // Valid JSON, as the semantic conventions carry them.
    expect(() => JSON.parse(input as string)).not.toThrow();
    expect(() => JSON.parse(output as string)).not.toThrow();
  });
});
