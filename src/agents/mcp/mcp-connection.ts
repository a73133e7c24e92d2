import { createRequire } from 'node:module';

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResultSchema, Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';

import { ConfigError } from '../../errors.js';
import type { McpSdk } from './load-mcp-sdk.js';
import type { RawToolResult } from './mcp-result-text.js';
import type { CheckedServerConfig } from './mcp-server-config.js';
import { outputSchemaValidator } from './output-schema-validator.js';
import { StdioTransport } from './stdio-transport.js';
import { codeOf, fieldOf } from '../../unknown-value.js';

export type { McpToolInfo };

/** The version Baton reports to servers in the MCP handshake. */
function batonVersion(): string {
  try {
    const manifest: unknown = createRequire(import.meta.url)('baton-agents/package.json');
    const version = fieldOf(manifest, 'version');
    return typeof version === 'string' ? version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/**
 * An error as one line: its message and its cause's (`fetch failed (connect ECONNREFUSED
 * 127.0.0.1:3001)`), since fetch puts the reason in the cause.
 */
function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? error.cause : undefined;
  if (!(cause instanceof Error)) return message;
  const code = codeOf(cause);
  const reason = cause.message !== '' ? cause.message : typeof code === 'string' ? code : '';
  return reason === '' ? message : `${message} (${reason})`;
}

/**
 * One live connection to an MCP server. It knows whether the server is still there: once a stdio
 * server exits, or after `close()`, every call fails at once with a message naming the server.
 */
export class McpConnection {
  /** The server's name from the handshake, or its command or URL if it gave none. */
  readonly name: string;
  readonly #client: Client;
  readonly #transport: StdioTransport | StreamableHTTPClientTransport;
  readonly #anyResult: McpSdk['ResultSchema'];
  /** Why calls cannot reach the server any more, once they cannot. */
  #down: string | undefined;
  #closing: Promise<void> | undefined;

  private constructor(
    name: string,
    client: Client,
    transport: StdioTransport | StreamableHTTPClientTransport,
    sdk: McpSdk,
  ) {
    this.name = name;
    this.#client = client;
    this.#transport = transport;
    this.#anyResult = sdk.ResultSchema;
    client.onclose = () => {
      if (this.#down !== undefined) return;
      const exit = transport instanceof StdioTransport ? transport.exitDescription : undefined;
      this.#down = `is not running: ${exit === undefined ? 'its connection closed' : `its process ${exit}`}`;
    };
    // Transport errors (a failed SSE stream, a line that is not JSON) are not fatal; a call
    // that fails because of one gets its own error.
    client.onerror = () => {};
  }

  /**
   * Starts or reaches the server and completes the MCP handshake.
   * @throws ConfigError when the server cannot be started or reached.
   */
  static async open(
    config: CheckedServerConfig,
    sdk: McpSdk,
    { maxMessageBytes }: { maxMessageBytes: number },
  ): Promise<McpConnection> {
    const client = new sdk.Client(
      { name: 'baton', version: batonVersion() },
      { jsonSchemaValidator: outputSchemaValidator },
    );
    const transport =
      config.kind === 'stdio'
        ? new StdioTransport(config, sdk, maxMessageBytes)
        : new sdk.StreamableHTTPClientTransport(config.url, {
            requestInit: { headers: config.headers },
          });
    try {
      await client.connect(transport);
    } catch (error) {
      await client.close().catch(() => {});
      throw new ConfigError(
        `mcpTools(): cannot connect to MCP server \`${config.label}\`: ${failure(transport, error)}. ` +
          (config.kind === 'stdio'
            ? 'Check the command and its arguments, and that the server starts on its own.'
            : 'Check the URL and the headers, and that the server is running.'),
        { cause: error },
      );
    }
    if (transport instanceof StdioTransport) transport.hold(false);
    const name = client.getServerVersion()?.name ?? config.label;
    return new McpConnection(name, client, transport, sdk);
  }

  /**
   * Every tool the server offers, following its pages.
   * @throws ConfigError when the server cannot list them.
   */
  async listTools(): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    try {
      do {
        const page = await this.#client.listTools(cursor === undefined ? {} : { cursor });
        tools.push(...page.tools);
        cursor = page.nextCursor;
        if (cursor !== undefined && seen.has(cursor)) {
          throw new Error(`it sent the page cursor "${cursor}" twice`);
        }
        if (cursor !== undefined) seen.add(cursor);
      } while (cursor !== undefined);
    } catch (error) {
      const reason = this.#down === undefined ? errorText(error) : `the server ${this.#down}`;
      throw new ConfigError(
        `mcpTools(): cannot list the tools of MCP server "${this.name}": ${reason}. ` +
          'Check that the server offers tools.',
        { cause: error },
      );
    }
    return tools;
  }

  /**
   * Calls one tool. Rejects with an error naming the server when it is gone or fails to answer;
   * a result with `isError` is returned like any other. The result is any JSON-RPC result object,
   * not checked against MCP's schema: `resultText` reads it with care, so a content block of a
   * type MCP does not define becomes a placeholder instead of failing the whole call.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<RawToolResult> {
    if (this.#down !== undefined) throw new Error(`MCP server "${this.name}" ${this.#down}.`);
    try {
      // The SDK types the schema as CallToolResultSchema only; it accepts any result schema.
      const anyResult = this.#anyResult as unknown as typeof CallToolResultSchema;
      return (await this.#client.callTool({ name, arguments: args }, anyResult, {
        signal: options.signal,
        timeout: options.timeoutMs,
      })) as RawToolResult;
    } catch (error) {
      // The connection may have closed while the call was pending (the server died).
      if (this.#down !== undefined) {
        throw new Error(`MCP server "${this.name}" ${this.#down}.`, { cause: error });
      }
      throw new Error(`MCP server "${this.name}" failed to answer: ${errorText(error)}`, {
        cause: error,
      });
    }
  }

  /** Ends the session and, for stdio, the server process. Safe to call more than once. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#down ??= 'is closed: close() was called on its tools';
      if (!(this.#transport instanceof StdioTransport)) {
        // Tells the server to drop the session; one that does not support it answers 405.
        await this.#transport.terminateSession().catch(() => {});
      }
      await this.#client.close();
    })();
    return this.#closing;
  }
}

/** Why a connection attempt failed, for the `ConfigError`. */
function failure(transport: StdioTransport | StreamableHTTPClientTransport, error: unknown) {
  if (!(transport instanceof StdioTransport) || transport.exitDescription === undefined) {
    return errorText(error);
  }
  const tail = transport.stderrTail.slice(-500);
  return `its process ${transport.exitDescription}${tail === '' ? '' : ` (stderr: ${JSON.stringify(tail)})`}`;
}
