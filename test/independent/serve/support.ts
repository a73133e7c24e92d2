// Shared builders for the independent serve suite (API.md §15), public API only: a real HTTP
// server on 127.0.0.1 bridging node:http to `handler.fetch`, two scripted workflows, an HTTP
// client with two principals, and a plain SSE reader.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

import { z } from 'zod';

import {
  Agent,
  type CheckpointStore,
  HandoffBuilder,
  type HandoffWorkflow,
  type ModelRequest,
  ScriptedChatClient,
  type serve,
  tool,
  speakerOf,
} from '../../../src/index.js';

/** What `serve()` returns, as API.md §15 names it. */
export interface Handler {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}
export type ServeOptions = NonNullable<Parameters<typeof serve>[1]>;

/** Tokens of the two principals every test uses (and one nobody owns). */
export const TOKENS = { alice: 'alice-token', bob: 'bob-token' } as const;
export type User = keyof typeof TOKENS;

/** `Authorization: Bearer <token>` → the principal of that token, else null. */
export function authenticate(request: Request): { id: string } | null {
  const header = request.headers.get('authorization') ?? '';
  for (const [id, token] of Object.entries(TOKENS)) {
    if (header === `Bearer ${token}`) return { id };
  }
  return null;
}

export interface Server {
  readonly url: string;
  readonly handler: Handler;
  /** Closes the HTTP server (dropping open sockets) and the handler. */
  close(): Promise<void>;
}

/** Serves `handler` over node:http on 127.0.0.1, port 0. Client disconnects cancel the body. */
export async function listen(handler: Handler): Promise<Server> {
  const server = createServer((req, res) => void bridge(handler, req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    handler,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await handler.close();
    },
  };
}

async function bridge(handler: Handler, req: IncomingMessage, res: ServerResponse) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
    method: req.method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    duplex: 'half',
    signal: controller.signal,
  } as RequestInit);
  let response: Response;
  try {
    response = await handler.fetch(request);
  } catch (error) {
    res.statusCode = 599; // a handler that throws is a bug the tests must see
    res.end(String(error));
    return;
  }
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.appendHeader(name, value));
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  res.on('close', () => {
    if (!res.writableFinished) void reader.cancel().catch(() => undefined);
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  } catch {
    res.destroy();
  }
}

/** One HTTP answer, body read. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** A client of `url` speaking as `user` (or as nobody). */
export function client(url: string, user?: User) {
  const auth: Record<string, string> = user ? { authorization: `Bearer ${TOKENS[user]}` } : {};
  const send = (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    fetch(url + path, {
      method,
      headers: {
        ...auth,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  return {
    auth,
    raw: send,
    get: async (path: string, headers?: Record<string, string>) =>
      answer(await send('GET', path, undefined, headers)),
    post: async (path: string, body?: unknown, headers?: Record<string, string>) =>
      answer(await send('POST', path, body ?? {}, headers)),
    del: async (path: string) => answer(await send('DELETE', path)),
  };
}
export type Client = ReturnType<typeof client>;

/** `{error: {code, message}}` with exactly those keys, both non-empty strings, sent as JSON. */
export function errorOf(a: Answer): { code: string; message: string } {
  const type = a.headers.get('content-type') ?? '';
  if (!type.startsWith('application/json')) {
    throw new Error(
      `an error answer (${a.status}) has Content-Type "${type}", not JSON: ${a.text}`,
    );
  }
  const body = a.json as { error: { code: string; message: string } };
  if (typeof body !== 'object' || body === null || Object.keys(body).join() !== 'error') {
    throw new Error(`not an error body: ${a.text}`);
  }
  const keys = Object.keys(body.error).sort().join();
  if (keys !== 'code,message') throw new Error(`error keys are ${keys}: ${a.text}`);
  if (typeof body.error.code !== 'string' || body.error.code === '') throw new Error(a.text);
  if (typeof body.error.message !== 'string' || body.error.message === '') throw new Error(a.text);
  return body.error;
}

/** A gate a scripted model call waits at; `started` resolves when a call reached it. */
export class Gate {
  #open!: () => void;
  #opened = new Promise<void>((resolve) => (this.#open = resolve));
  #reached!: () => void;
  readonly started = new Promise<void>((resolve) => (this.#reached = resolve));
  async pass(): Promise<void> {
    this.#reached();
    await this.#opened;
  }
  open(): void {
    this.#open();
  }
}

type LLM = { role: string; content?: string | null; toolCallId?: string };
// Other agents' turns reach a model as user turns naming them (API.md §20): the customer's are
// the ones `speakerOf` says are the user's.
const lastUser = (request: ModelRequest) =>
  request.messages.filter((m) => speakerOf(m) === 'user').at(-1)?.content ?? '';

let callSeq = 0;
/** A fresh call id, unique in the process. */
export const nextCallId = (prefix: string) => `${prefix}-${++callSeq}`;

export interface DeskOptions {
  store?: CheckpointStore;
  /** The gated agent's model call waits here when the user's text contains "slow". */
  gate?: Gate;
  /** Which agent the gate holds. @default 'billing' */
  gated?: 'triage' | 'billing';
  /** Billing streams its text in these chunks. */
  chunks?: boolean;
}

/**
 * triage (coordinator) always hands off to billing; billing, given a user text containing
 * "refund", calls `refund {invoiceId: "42"}` (needs approval) and answers `Done: <result>` after
 * the result; any other text gets `Billing: <text>` (a pause, kind "input").
 */
export function desk(options: DeskOptions = {}) {
  const refunds: string[] = [];
  const refund = tool({
    name: 'refund',
    description: 'Refunds an invoice.',
    parameters: z.object({ invoiceId: z.string() }),
    needsApproval: true,
    execute: async ({ invoiceId }) => {
      refunds.push(invoiceId);
      return `refunded ${invoiceId}`;
    },
  });
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient(async (request) => {
      if (options.gated === 'triage' && lastUser(request).includes('slow')) {
        await options.gate?.pass();
      }
      return {
        content: null,
        toolCalls: [{ id: nextCallId('handoff'), name: 'handoff_to_billing', arguments: '{}' }],
      };
    }),
  });
  const billing = new Agent({
    name: 'billing',
    tools: [refund],
    maxToolIterations: 3,
    stream: options.chunks ?? false,
    client: new ScriptedChatClient(async (request) => {
      const last = (request.messages as LLM[]).at(-1);
      const text = lastUser(request);
      if (options.gated !== 'triage' && text.includes('slow')) await options.gate?.pass();
      if (last?.role === 'tool') return { content: `Done: ${last.content}` };
      if (text.includes('refund')) {
        return {
          content: null,
          toolCalls: [
            { id: nextCallId('refund'), name: 'refund', arguments: '{"invoiceId":"42"}' },
          ],
        };
      }
      const content = `Billing: ${text}`;
      return options.chunks ? { chunks: ['Billing: ', text] } : { content };
    }),
  });
  let builder = new HandoffBuilder({ name: 'desk', participants: [triage, billing] }).coordinator(
    triage,
  );
  if (options.store) builder = builder.withCheckpointing(options.store);
  const workflow: HandoffWorkflow = builder.build();
  return { workflow, refunds };
}

/** One plain SSE event. */
export interface SseEvent {
  id?: string | undefined;
  event?: string | undefined;
  data: string;
}

/** Reads SSE events from `body` as they arrive. */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parseBlock(block);
        if (event) yield event;
      }
    }
    const event = parseBlock(buffer);
    if (event) yield event;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function parseBlock(block: string): SseEvent | undefined {
  const data: string[] = [];
  let id: string | undefined;
  let event: string | undefined;
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
    else if (field === 'event') event = value;
  }
  if (data.length === 0 && id === undefined && event === undefined) return undefined;
  return { id, event, data: data.join('\n') };
}

/** Every SSE event of a response that ends. */
export async function allEvents(response: Response): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  if (!response.body) return events;
  for await (const event of sseEvents(response.body)) events.push(event);
  return events;
}

/** Polls `probe` until it returns true (no time assertion: only the test's own timeout). */
export async function until(probe: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await probe())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** `JSON.parse(JSON.stringify(value))`: what a value looks like after the wire. */
export const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * One request through node:http itself (any header, e.g. `Origin`; a body sent in chunks without
 * Content-Length when `chunks` is given).
 */
export async function rawRequest(
  url: string,
  options: { method: string; path: string; headers?: Record<string, string>; chunks?: string[] },
): Promise<Answer> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url + options.path, { method: options.method, headers: options.headers });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
        }
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers, text, json });
      });
    });
    // A server may answer (413) before the whole body is sent and close: that is not an error.
    req.on('close', () => undefined);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}
