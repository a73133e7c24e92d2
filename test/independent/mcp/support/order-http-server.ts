// The order-desk MCP server over Streamable HTTP, in-process on 127.0.0.1: stateless (one SDK
// server and transport per request) or, with `stateful`, one session for one client, with the
// standalone SSE stream (GET) and session termination (DELETE). It records every `tools/call` and the `authorization` header
// of every request, can demand a bearer token, holds `wait_for_release` calls until the test
// releases them, and can be stopped to play a server that went away.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

import { ORDER_SERVER_NAME, orderServer, type RecordedCall } from './order-tools.mjs';

/** Options of `startOrderHttpServer`. */
export interface OrderHttpServerOptions {
  /** When set, requests without `authorization: Bearer <token>` get 401. */
  token?: string;
  name?: string;
  /** One session (`mcp-session-id`) served by one SDK server and transport. */
  stateful?: boolean;
}

/** A running in-process order-desk server. */
export interface OrderHttpServer {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  /** Every `tools/call` received, oldest first. */
  readonly calls: RecordedCall[];
  /** The `authorization` header of every request (`null` when absent), oldest first. */
  readonly authorizations: (string | null)[];
  /** The HTTP method of every request that passed authorization, oldest first. */
  readonly methods: string[];
  /** How many GET (SSE) responses are still open. */
  openStreams(): number;
  /** Resolves when a `wait_for_release` call has reached the server (the next one, once used). */
  waitingCall(): Promise<void>;
  /** Answers the pending `wait_for_release` calls with `text`. */
  release(text: string): void;
  /** Stops listening and drops every open connection. */
  stop(): Promise<void>;
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}
function deferred(): Deferred {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Starts an order-desk server on a free port of 127.0.0.1. */
export async function startOrderHttpServer(
  options: OrderHttpServerOptions = {},
): Promise<OrderHttpServer> {
  const calls: RecordedCall[] = [];
  const authorizations: (string | null)[] = [];
  let waiting = deferred();
  const releases: ((text: string) => void)[] = [];
  const methods: string[] = [];
  let openStreams = 0;
  const hooks = {
    onCall: (call: RecordedCall) => calls.push(call),
    release: () =>
      new Promise<string>((resolve) => {
        releases.push(resolve);
        waiting.resolve();
      }),
  };
  const serverOptions = { name: options.name ?? ORDER_SERVER_NAME };
  let session: Promise<StreamableHTTPServerTransport> | undefined;
  const sessionTransport = () =>
    (session ??= (async () => {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID });
      await orderServer(hooks, serverOptions).connect(transport);
      return transport;
    })());

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const authorization = req.headers.authorization ?? null;
    authorizations.push(authorization);
    if (options.token !== undefined && authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    methods.push(req.method ?? '');
    if (options.stateful) {
      if (req.method === 'GET') {
        openStreams++;
        res.on('close', () => openStreams--);
      }
      await (await sessionTransport()).handleRequest(req, res);
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const server = orderServer(hooks, serverOptions);
    const transport = new StreamableHTTPServerTransport({});
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    authorizations,
    methods,
    openStreams: () => openStreams,
    waitingCall: () => waiting.promise,
    release(text) {
      for (const resolve of releases.splice(0)) resolve(text);
      waiting = deferred();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
