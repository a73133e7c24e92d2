import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { messagesRequestProblems } from './anthropic-wire-rules.js';

/**
 * One scripted answer: text and tool calls (streamed as SSE when the request asks for a stream:
 * text in pieces of 5 characters, tool input in 2 pieces), or an error status with its message.
 */
export type AnthropicReply =
  | {
      text?: string;
      toolCalls?: { id: string; name: string; input: Record<string, unknown> }[];
      usage?: { input_tokens: number; output_tokens: number };
    }
  | { status: number; message: string; type?: string };

/** A request as the server received it. */
export interface AnthropicRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A local Anthropic Messages API for tests; it checks what it receives (`anthropic-wire-rules`). */
export interface AnthropicMessagesServer {
  /** The base URL to give `createAnthropic({ baseURL })`: `http://127.0.0.1:<port>/v1`. */
  readonly url: string;
  readonly requests: readonly AnthropicRequest[];
  /** Every rule a request broke; a test must end with none. */
  readonly violations: readonly string[];
  reply(...replies: AnthropicReply[]): void;
  close(): Promise<void>;
}

/**
 * Starts the server on 127.0.0.1 and a free port. A request with another `x-api-key` than
 * `apiKey` gets a 401 whose message repeats the key it was sent, as some gateways do. A request
 * that breaks a rule gets a 400 `invalid_request_error` (and is recorded in `violations`).
 */
export async function startAnthropicMessagesServer(options: {
  apiKey: string;
}): Promise<AnthropicMessagesServer> {
  const queue: AnthropicReply[] = [];
  const requests: AnthropicRequest[] = [];
  const violations: string[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (raw += piece));
    req.on('end', () => {
      const n = requests.length + 1;
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        violations.push(`request #${n}: the body is not JSON`);
      }
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.method !== 'POST' || req.url !== '/v1/messages') {
        violations.push(`request #${n}: unexpected ${req.method} ${req.url}`);
        return sendError(res, 404, 'not_found_error', `Not found: ${req.url}`);
      }
      const key = req.headers['x-api-key'];
      if (key !== options.apiKey) {
        return sendError(res, 401, 'authentication_error', `invalid x-api-key: ${String(key)}`);
      }
      if (typeof req.headers['anthropic-version'] !== 'string') {
        violations.push(`request #${n}: no anthropic-version header`);
      }
      const problems = messagesRequestProblems(body);
      if (problems.length > 0) {
        violations.push(...problems.map((p) => `request #${n}: ${p}`));
        return sendError(res, 400, 'invalid_request_error', problems.join(' '));
      }
      const reply = queue.shift();
      if (reply === undefined) {
        violations.push(`request #${n}: no scripted reply left`);
        return sendError(res, 400, 'invalid_request_error', 'The test server has no reply left.');
      }
      if ('status' in reply) {
        return sendError(res, reply.status, reply.type ?? 'api_error', reply.message);
      }
      const model = String(body.model);
      if (body.stream === true) return sendStream(res, model, reply);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(message(model, reply, contentOf(reply))));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    violations,
    reply: (...replies) => queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Answer = Exclude<AnthropicReply, { status: number }>;

function contentOf(reply: Answer): Record<string, unknown>[] {
  return [
    ...(reply.text === undefined ? [] : [{ type: 'text', text: reply.text }]),
    ...(reply.toolCalls ?? []).map((c) => ({ type: 'tool_use', ...c })),
  ];
}

function message(model: string, reply: Answer, content: unknown[]) {
  return {
    id: `msg_${Math.random().toString(36).slice(2)}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: (reply.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: reply.usage ?? { input_tokens: 0, output_tokens: 0 },
  };
}

function sendStream(res: ServerResponse, model: string, reply: Answer): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: Record<string, unknown>) =>
    res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  const start = message(model, reply, []);
  const usage = reply.usage ?? { input_tokens: 0, output_tokens: 0 };
  send({
    type: 'message_start',
    message: { ...start, stop_reason: null, usage: { ...usage, output_tokens: 0 } },
  });
  contentOf(reply).forEach((block, index) => {
    if (block.type === 'text') {
      send({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      const text = String(block.text);
      for (let i = 0; i < text.length; i += 5) {
        const delta = { type: 'text_delta', text: text.slice(i, i + 5) };
        send({ type: 'content_block_delta', index, delta });
      }
    } else {
      const { input, ...rest } = block;
      send({ type: 'content_block_start', index, content_block: { ...rest, input: {} } });
      const json = JSON.stringify(input);
      const half = Math.ceil(json.length / 2);
      for (const part of [json.slice(0, half), json.slice(half)]) {
        send({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: part },
        });
      }
    }
    send({ type: 'content_block_stop', index });
  });
  send({
    type: 'message_delta',
    delta: { stop_reason: start.stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  send({ type: 'message_stop' });
  res.end();
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ type: 'error', error: { type, message } }));
}
