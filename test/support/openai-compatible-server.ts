import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { chatRequestProblems } from './wire-rules.js';

/** Token counts as the wire carries them. */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** A tool call the server answers with; `arguments` may be an object (sent as JSON). */
export interface ReplyToolCall {
  id: string;
  name: string;
  arguments: string | Record<string, unknown>;
}

/**
 * One scripted answer. Streaming requests get the same answer as SSE: text split into `chunks`
 * (default: pieces of 4 characters), each tool call as a first delta with id and name and then its
 * arguments in `argumentPieces` pieces (default 3), then a usage chunk when asked for.
 */
export type ScriptedReply =
  | {
      text?: string;
      toolCalls?: ReplyToolCall[];
      usage?: WireUsage;
      reasoning?: string;
      /** The model's refusal (`message.refusal`; streamed as `delta.refusal` pieces of 4). */
      refusal?: string;
      chunks?: string[];
      argumentPieces?: number;
    }
  | {
      status: number;
      message: string;
      type?: string;
      code?: string;
      headers?: Record<string, string>;
    }
  | { hang: true }
  /** This body as it is (a 200 JSON answer), or these SSE events for a streaming request. */
  | { json: unknown }
  | { events: unknown[] };

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A local OpenAI-compatible server for integration tests. */
export interface OpenAICompatibleServer {
  /** The base URL to give the SDK: `http://127.0.0.1:<port>/v1`. */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** Every wire rule a request broke; a test must end with none. */
  readonly violations: readonly string[];
  /** Queues answers for the next requests. */
  reply(...replies: ScriptedReply[]): void;
  /** Resolves once the server has received `count` requests. */
  received(count: number): Promise<void>;
  /** Throws, listing them, when any request broke a rule. */
  assertNoViolations(): void;
  /** Forgets requests, violations and queued answers. */
  reset(): void;
  close(): Promise<void>;
}

const NO_USAGE: WireUsage = { prompt_tokens: 0, completion_tokens: 0 };

/**
 * Starts the server on 127.0.0.1 and a free port. Each request is checked against the rules real
 * providers enforce (`wire-rules.ts`); a broken rule is recorded in `violations` and answered with
 * a 400 that the SDK does not retry. With `apiKey`, other keys get a 401.
 */
export async function startOpenAICompatibleServer(
  options: { apiKey?: string } = {},
): Promise<OpenAICompatibleServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];

  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => {
      raw += piece;
    });
    req.on('end', () => {
      const n = requests.length + 1;
      const path = req.url ?? '';
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        violations.push(`request #${n}: the body is not JSON`);
      }
      requests.push({ method: req.method ?? '', path, headers: req.headers, body });
      for (const w of waiters.filter((w) => requests.length >= w.count)) w.resolve();
      if (req.method !== 'POST' || path !== '/v1/chat/completions') {
        violations.push(`request #${n}: unexpected ${req.method} ${path}`);
        return sendError(
          res,
          404,
          `Unknown endpoint ${req.method} ${path}`,
          'invalid_request_error',
        );
      }
      if (
        options.apiKey !== undefined &&
        req.headers.authorization !== `Bearer ${options.apiKey}`
      ) {
        return sendError(res, 401, 'Incorrect API key provided.', 'invalid_request_error', {
          code: 'invalid_api_key',
        });
      }
      const problems = chatRequestProblems(body);
      if (problems.length > 0) {
        violations.push(...problems.map((p) => `request #${n}: ${p}`));
        return sendError(res, 400, problems.join(' '), 'invalid_request_error');
      }
      const reply = queue.shift();
      if (reply === undefined) {
        violations.push(`request #${n}: no scripted reply left`);
        return sendError(res, 400, 'The test server has no scripted reply left.', 'test_error');
      }
      if ('hang' in reply) return;
      if ('json' in reply) return sendJson(res, 200, reply.json);
      if ('events' in reply) return sendEvents(res, reply.events);
      if ('status' in reply) {
        const retryable = reply.status === 429 || reply.status >= 500;
        return sendError(res, reply.status, reply.message, reply.type ?? 'server_error', {
          ...(reply.code === undefined ? {} : { code: reply.code }),
          headers: { ...(retryable ? { 'retry-after-ms': '0' } : {}), ...reply.headers },
        });
      }
      const offered = new Set(
        ((body.tools ?? []) as { function?: { name?: string } }[]).map((t) => t.function?.name),
      );
      for (const c of reply.toolCalls ?? []) {
        if (!offered.has(c.name)) {
          violations.push(
            `request #${n}: the scripted reply calls "${c.name}", which was not offered`,
          );
        }
      }
      const model = String(body.model);
      if (body.stream === true) {
        const usage = (body.stream_options as { include_usage?: boolean } | undefined)
          ?.include_usage;
        return sendStream(res, n, model, reply, usage === true);
      }
      sendJson(res, 200, completion(n, model, reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    violations,
    reply: (...replies) => {
      queue.push(...replies);
    },
    received: (count) =>
      requests.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    assertNoViolations: () => {
      if (violations.length > 0) {
        throw new Error(
          `The OpenAI-compatible test server saw wire violations:\n${violations.join('\n')}`,
        );
      }
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      violations.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

type Answer = Exclude<
  ScriptedReply,
  { status: number } | { hang: true } | { json: unknown } | { events: unknown[] }
>;

function argumentsText(call: ReplyToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

function usageOf(answer: Answer) {
  const usage = answer.usage ?? NO_USAGE;
  return { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
}

function completion(n: number, model: string, answer: Answer) {
  const calls = answer.toolCalls ?? [];
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: answer.text ?? null,
    refusal: answer.refusal ?? null,
  };
  if (calls.length > 0) {
    message.tool_calls = calls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: argumentsText(c) },
    }));
  }
  if (answer.reasoning !== undefined) message.reasoning_content = answer.reasoning;
  return {
    id: `chatcmpl-${n}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: usageOf(answer),
  };
}

function sendStream(res: ServerResponse, n: number, model: string, answer: Answer, usage: boolean) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: `chatcmpl-${n}`,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(usage ? { usage: null } : {}),
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  if (answer.reasoning !== undefined) events.push(chunk({ reasoning_content: answer.reasoning }));
  const text = answer.text ?? '';
  for (const piece of answer.chunks ?? splitEvery(text, 4)) events.push(chunk({ content: piece }));
  for (const piece of splitEvery(answer.refusal ?? '', 4)) events.push(chunk({ refusal: piece }));
  const calls = answer.toolCalls ?? [];
  calls.forEach((c, index) => {
    const head = { index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } };
    events.push(chunk({ tool_calls: [head] }));
    for (const piece of splitInto(argumentsText(c), answer.argumentPieces ?? 3)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  events.push(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'));
  if (usage) {
    events.push({
      id: `chatcmpl-${n}`,
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model,
      choices: [],
      usage: usageOf(answer),
    });
  }
  sendEvents(res, events);
}

function sendEvents(res: ServerResponse, events: readonly unknown[]) {
  if (!res.headersSent) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  }
  for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.end('data: [DONE]\n\n');
}

function splitEvery(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

function splitInto(text: string, count: number): string[] {
  return splitEvery(text, Math.max(1, Math.ceil(text.length / count)));
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-request-id': 'req_test',
    ...headers,
  });
  res.end(JSON.stringify(body));
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  extra: { code?: string; headers?: Record<string, string> } = {},
) {
  const headers = {
    ...(status === 400 || status === 401 ? { 'x-should-retry': 'false' } : {}),
    ...extra.headers,
  };
  sendJson(
    res,
    status,
    { error: { message, type, param: null, code: extra.code ?? null } },
    headers,
  );
}
