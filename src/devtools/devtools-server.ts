import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';

import { ConfigError } from '../errors.js';
import { redactSecrets } from '../redact.js';
import { fileSafe, saveRecordedTest } from '../testing/save-recorded-test.js';
import { fieldOf, isRecord } from '../unknown-value.js';
import { thrownText } from '../value-text.js';

import { isConditionLike } from './condition-progress.js';
import { devtoolsPage } from './page-html.js';
import { checkRequest } from './request-guard.js';
import { graphStates } from './session-activity.js';
import { type Decision, type DevWorkflow, HubRequestError } from './hub-types.js';
import { SessionHub } from './session-hub.js';
import { type WorkflowGraph, workflowGraph } from './workflow-graph.js';

/** Options of `startDevtoolsServer()`. */
export interface DevtoolsServerOptions {
  readonly workflow: DevWorkflow;
  /** Shown in the page header. */
  readonly name: string;
  /** The module the workflow came from, shown in the page header. */
  readonly module: string;
  /** The workflow's termination condition, when the module exports it: the page shows progress. */
  readonly condition?: unknown;
  /** The `FileCheckpointStore` directory the CLI gave the workflow: its sessions are listed. */
  readonly storeDirectory?: string;
  /** Where "Save as test" writes a session's test and recording. @default test/recorded */
  readonly testDirectory?: string;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** @default 24 random bytes, base64url */
  readonly token?: string;
}

/** A running devtools server. */
export interface DevtoolsServer {
  /** The page's address with its token: `http://127.0.0.1:<port>/?token=<token>`. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** Stops every run, ends every event stream and closes the server. */
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const type = request.headers['content-type'] ?? '';
  if (!type.startsWith('application/json')) {
    throw new HubRequestError(
      400,
      'Send the request body as JSON (content-type: application/json).',
    );
  }
  let size = 0;
  const chunks: Buffer[] = [];
  // Without setEncoding() a request yields Buffers.
  for await (const chunk of request) {
    const bytes: Buffer = chunk;
    size += bytes.length;
    if (size > MAX_BODY) throw new HubRequestError(400, 'The request body is too large.');
    chunks.push(bytes);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HubRequestError(400, 'The request body is not valid JSON.');
  }
  if (!isRecord(value) || Array.isArray(value)) {
    throw new HubRequestError(400, 'The request body must be a JSON object.');
  }
  return value;
}

function forkOrigin(body: Record<string, unknown>): { session: string; step: number } | undefined {
  const from = body.from;
  if (from === undefined) return undefined;
  if (!isRecord(from) || typeof from.session !== 'string' || typeof from.step !== 'number') {
    throw new HubRequestError(400, 'from must be { session: string, step: number }.');
  }
  return { session: from.session, step: from.step };
}

/** Whether the workflow keeps a step log: its sessions answer `checkpoints()` without a ConfigError. */
async function hasOwnStore(workflow: DevWorkflow): Promise<boolean> {
  const probe = workflow.session(`devtools-probe-${randomBytes(4).toString('hex')}`);
  if (typeof probe.checkpoints !== 'function') return false;
  try {
    await probe.checkpoints();
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts the devtools server of `baton dev` on 127.0.0.1: the page, a small JSON API over the
 * workflow's sessions and a server-sent event stream of everything they do. Every request needs
 * the token, and the Host/Origin checks of `checkRequest()`; nothing it sends is built from a
 * client or agent object (messages, step logs, the graph and condition configs are plain data),
 * so no API key can leave the process.
 */
export async function startDevtoolsServer(options: DevtoolsServerOptions): Promise<DevtoolsServer> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const graph: WorkflowGraph | undefined =
    options.workflow.machine === undefined ? undefined : workflowGraph(options.workflow.machine);
  const condition = isConditionLike(options.condition) ? options.condition : undefined;
  const hub = new SessionHub(options.workflow, {
    ...(condition === undefined ? {} : { condition }),
    ...(options.storeDirectory === undefined ? {} : { storeDirectory: options.storeDirectory }),
    states: graphStates(graph),
  });
  const persistence =
    options.storeDirectory !== undefined
      ? `Sessions are stored in ${options.storeDirectory}/ (a FileCheckpointStore given by the CLI); all of them are listed.`
      : (await hasOwnStore(options.workflow))
        ? "Sessions use the workflow's own checkpoint store: this list shows the ones opened here; open any other by id."
        : 'The workflow has no checkpoint store: sessions live in this process only, with no step log and no forks.';
  const coordinator = fieldOf(options.workflow, 'coordinator');
  const workflowInfo = {
    name: options.name,
    module: options.module,
    graph: graph ?? null,
    coordinator: typeof coordinator === 'string' ? coordinator : null,
    persistence,
    conditionNote:
      condition === undefined
        ? 'Export the termination condition as `terminationCondition` from the module to see how close it is to firing.'
        : null,
  };
  /** "Save as test": the session's recording and a Vitest test replaying it, written to disk. */
  const saveAsTest = async (id: string) => {
    const session = options.workflow.session(id);
    if ((await session.messages()).length === 0) {
      throw new HubRequestError(400, `Session "${id}" has no messages yet: nothing to record.`);
    }
    try {
      return await saveRecordedTest({
        session,
        sessionId: id,
        modulePath: options.module,
        storeGiven: options.storeDirectory !== undefined,
        out: join(options.testDirectory ?? join('test', 'recorded'), `${fileSafe(id)}.test.ts`),
      });
    } catch (error) {
      if (error instanceof ConfigError) throw new HubRequestError(400, error.message);
      throw error;
    }
  };
  const streams = new Set<ServerResponse>();
  let port = 0;

  const route = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const verdict = checkRequest(request, { token, port });
    if (!verdict.ok) return send(response, verdict.status, { error: verdict.reason });
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    const method = request.method ?? 'GET';
    if (method === 'GET' && path === '/') {
      const nonce = randomBytes(16).toString('base64');
      response.writeHead(200, {
        ...SECURITY_HEADERS,
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy':
          `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}' 'unsafe-inline'; ` +
          "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      });
      return void response.end(devtoolsPage(nonce));
    }
    if (method === 'GET' && path === '/api/workflow') return send(response, 200, workflowInfo);
    if (method === 'GET' && path === '/api/events') return openStream(request, response);
    if (method === 'GET' && path === '/api/sessions') {
      return send(response, 200, { sessions: await hub.list() });
    }
    if (method === 'POST' && path === '/api/sessions') {
      const id = await hub.create(forkOrigin(await readJson(request)));
      return send(response, 201, { id });
    }
    const match = /^\/api\/sessions\/([^/]+)(?:\/(run|stop|test))?$/.exec(path);
    if (match !== null) {
      const id = decodePathSegment(match[1] ?? '');
      if (id.length > 200) throw new HubRequestError(400, 'The session id is too long.');
      const action = match[2];
      if (method === 'GET' && action === undefined)
        return send(response, 200, await hub.snapshot(id));
      if (method === 'POST' && action === 'run') {
        const body = await readJson(request);
        if (body.decisions !== undefined) {
          await hub.run(id, null, decisionsOf(body.decisions));
          return send(response, 202, { ok: true });
        }
        const text = body.text;
        if (text !== undefined && text !== null && typeof text !== 'string') {
          throw new HubRequestError(
            400,
            'text must be a string (or null to continue without a task).',
          );
        }
        await hub.run(id, typeof text === 'string' ? text : null);
        return send(response, 202, { ok: true });
      }
      if (method === 'POST' && action === 'test') {
        await readJson(request);
        return send(response, 201, await saveAsTest(id));
      }
      if (method === 'POST' && action === 'stop') {
        await readJson(request);
        if (hub.stop(id)) return send(response, 202, { ok: true });
        return send(response, 409, { error: `Session "${id}" is not running.` });
      }
    }
    send(response, 404, { error: `No route for ${method} ${path}.` });
  };

  const openStream = (request: IncomingMessage, response: ServerResponse): void => {
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      connection: 'keep-alive',
    });
    response.write(': connected\n\n');
    streams.add(response);
    const unsubscribe = hub.subscribe(({ event, data }) => {
      // close() ends every stream while a stopped run may still report its end.
      if (response.writableEnded) return;
      response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    });
    const ping = setInterval(() => response.write(': ping\n\n'), 15_000);
    request.on('close', () => {
      clearInterval(ping);
      unsubscribe();
      streams.delete(response);
    });
  };

  const server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      if (response.headersSent) return void response.end();
      if (error instanceof HubRequestError)
        return send(response, error.status, { error: error.message });
      send(response, 500, { error: redactSecrets(thrownText(error)) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  // Listening on a TCP port, the address is an AddressInfo (a string only for a pipe).
  port = typeof address === 'object' && address !== null ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      hub.stopAll();
      hub.close();
      for (const stream of streams) stream.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A percent-encoded path segment, decoded; malformed escapes are the client's fault (400). */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HubRequestError(400, 'The session id in the path is not valid percent-encoding.');
  }
}

/** The `decisions` of a run request: `[{ callId, approved, reason?, result? }]`. */
function decisionsOf(value: unknown): Decision[] {
  if (Array.isArray(value) && value.length > 0 && value.every(isDecision)) return value;
  throw new HubRequestError(
    400,
    'decisions must be a non-empty array of { callId: string, approved: boolean, reason?: string, ' +
      'result?: string }.',
  );
}

function isDecision(d: unknown): d is Decision {
  return (
    isRecord(d) &&
    typeof d.callId === 'string' &&
    typeof d.approved === 'boolean' &&
    (d.reason === undefined || typeof d.reason === 'string') &&
    (d.result === undefined || typeof d.result === 'string')
  );
}
