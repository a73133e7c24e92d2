import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

const require = createRequire(import.meta.url);

/**
 * The entry script of an MCP server installed from npm (its `bin`), to start with
 * `process.execPath`: nothing is downloaded and no shell or npx is involved.
 */
export function serverEntry(pkg: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  const [script] = Object.values(bin);
  if (script === undefined) throw new Error(`${pkg} has no bin entry.`);
  return join(dirname(manifest), script);
}

/** The ids of this process's running children whose command line contains `text` (Linux). */
export function childPids(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of stat is the parent id; the command name (field 2) may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (ppid !== process.pid || state === 'Z') continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.includes(text)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** A tool of the test HTTP server: what `tools/list` says and what a call returns. */
export interface HttpTestTool extends Tool {
  answer: (args: Record<string, unknown>) => CallToolResult;
}

/** What the test HTTP server saw, in order: `initialize <authorization>`, `call <name> <args>`, `closed`. */
export interface HttpMcpTestServer {
  readonly url: string;
  readonly seen: string[];
  /** Stops listening and drops every connection. */
  stop(): Promise<void>;
}

/**
 * A Streamable HTTP MCP server built with the SDK's low-level `Server` (so the JSON Schemas are
 * exactly the ones given) on 127.0.0.1 and a free port, one session per client.
 */
export async function startHttpMcpServer(
  tools: readonly HttpTestTool[],
  { offersTools = true }: { offersTools?: boolean } = {},
): Promise<HttpMcpTestServer> {
  const seen: string[] = [];
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const newSession = async (authorization: string) => {
    const server = new Server(
      { name: 'http-test', version: '1.0.0' },
      { capabilities: offersTools ? { tools: {} } : {} },
    );
    if (offersTools) {
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: tools.map(({ answer: _answer, ...listed }) => listed),
      }));
      server.setRequestHandler(CallToolRequestSchema, (request) => {
        const args = request.params.arguments ?? {};
        seen.push(`call ${request.params.name} ${JSON.stringify(args)}`);
        const found = tools.find((t) => t.name === request.params.name);
        if (found === undefined) throw new Error(`no tool ${request.params.name}`);
        return found.answer(args);
      });
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
        seen.push(`initialize ${authorization}`);
      },
      onsessionclosed: (id) => {
        transports.delete(id);
        seen.push('closed');
      },
    });
    await server.connect(transport);
    return transport;
  };
  const http = createServer((req, res) => {
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? transports.get(id) : undefined;
    const handle = async () => {
      const transport = known ?? (await newSession(req.headers.authorization ?? '(none)'));
      await transport.handleRequest(req, res);
    };
    handle().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    stop: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        http.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

/** The ids of every running process (any parent) whose command line contains `text` (Linux). */
export function processesMatching(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => {
      if (!/^\d+$/.test(entry)) return false;
      try {
        const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
        return cmdline.includes(text) && Number(entry) !== process.pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}
