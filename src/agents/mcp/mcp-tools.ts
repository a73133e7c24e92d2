import { ConfigError } from '../../errors.js';
import { type Tool, type ToolContext, type ToolEffect, tool } from '../tool.js';
import { loadMcpSdk } from './load-mcp-sdk.js';
import { McpConnection, type McpToolInfo } from './mcp-connection.js';
import { resultText } from './mcp-result-text.js';
import { checkServerConfig, type McpServerConfig } from './mcp-server-config.js';

/** Which calls of an MCP server's tools wait for a person's approval. */
export type McpToolApproval =
  | boolean
  /** The server's names of the tools that need approval. */
  | readonly string[]
  | ((args: Record<string, unknown>, ctx: ToolContext) => boolean | Promise<boolean>);

/** Options of `mcpTools()`. */
export interface McpToolsOptions {
  /** Only these of the server's tools (by the server's names). @default every tool */
  include?: readonly string[];
  /** None of these of the server's tools (by the server's names). @default none */
  exclude?: readonly string[];
  /** Names the tools `<prefix>_<name>`, to keep apart servers whose tool names clash. */
  prefix?: string;
  /**
   * Whether a call waits for approval: for every tool, for the tools named, or as a function of
   * the call. Each tool carries it as its `needsApproval`, for tool approvals.
   * @default false
   */
  needsApproval?: McpToolApproval;
  /** How long a call may take before it becomes an error result. @default 60_000 */
  timeoutMs?: number;
  /**
   * The effect of every tool of this server. @default from each tool's annotations:
   * `readOnlyHint` → `"read"`, else `idempotentHint` → `"idempotent"`, else `"once"`
   */
  effect?: ToolEffect;
  /**
   * The largest message a stdio server may send, in bytes (a tool result is one message). A
   * server that sends a larger one is stopped: the call waiting for it and every later call
   * become error results naming the server, and the run goes on.
   * @default 10_485_760 (10 MiB, the MCP SDK's own limit for stdio)
   */
  maxMessageBytes?: number;
}

/** The default `maxMessageBytes`: 10 MiB, as the MCP SDK's stdio transport allows. */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** A tool of an MCP server, with the approval setting `mcpTools()` was given. */
export type McpTool = Tool<Record<string, unknown>> & {
  readonly needsApproval?: Exclude<McpToolApproval, readonly string[]>;
};

/** What `mcpTools()` resolves to: the server's tools and the way to end the connection. */
export interface McpTools {
  readonly tools: McpTool[];
  /** The server's name from its handshake; error results of its tools name it. */
  readonly serverName: string;
  /** Ends the connection and, for a stdio server, its process. Later calls become error results. */
  close(): Promise<void>;
}

const PREFIX = /^[A-Za-z0-9_-]{1,63}$/;

/**
 * Connects to an MCP server and gives its tools as Baton tools. Each keeps the server's name
 * (with `prefix`: `<prefix>_<name>`), description and JSON Schema, which the model receives
 * unchanged; arguments are checked against that schema before the call. Text content is the
 * result and other content a short placeholder (`[image image/png]`); a result with `isError`
 * becomes an error result. When the server fails or exits, or a stdio server sends a message
 * larger than `maxMessageBytes`, each later call becomes an error result naming it and the run
 * goes on. Loads `@modelcontextprotocol/sdk` (an optional peer) on
 * first use. An idle connection does not keep Node running, and a stdio server is ended when
 * this process exits; call `close()` when done all the same.
 *
 * @example
 * const files = await mcpTools({ command: 'npx', args: ['@modelcontextprotocol/server-filesystem', dir] });
 * const clerk = new Agent({ name: 'clerk', client, tools: [...files.tools] });
 * // ...
 * await files.close();
 * @throws ConfigError for bad options, a missing SDK, a server that cannot be started or reached,
 *   an `include`/`exclude`/`needsApproval` name the server does not have, or a tool whose name or
 *   schema cannot be used (leave it out with `exclude`).
 */
export async function mcpTools(
  server: McpServerConfig,
  options: McpToolsOptions = {},
): Promise<McpTools> {
  const config = checkServerConfig(server);
  checkOptions(options);
  const sdk = await loadMcpSdk();
  const connection = await McpConnection.open(config, sdk, {
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
  });
  try {
    const offered = await connection.listTools();
    const tools = selectTools(connection.name, offered, options).map((info) =>
      toTool(connection, info, options),
    );
    return {
      tools,
      serverName: connection.name,
      close: () => connection.close(),
    };
  } catch (error) {
    await connection.close();
    throw error;
  }
}

function checkOptions(options: McpToolsOptions): void {
  const { include, exclude, prefix, needsApproval, timeoutMs, maxMessageBytes, effect } = options;
  if (effect !== undefined && !['read', 'idempotent', 'once'].includes(effect)) {
    throw new ConfigError(
      `mcpTools(): \`effect\` must be "read", "idempotent" or "once", got ${JSON.stringify(effect)}.`,
      { path: 'effect' },
    );
  }
  for (const [key, list] of [
    ['include', include],
    ['exclude', exclude],
  ] as const) {
    if (list !== undefined && (!Array.isArray(list) || !list.every((n) => typeof n === 'string'))) {
      throw new ConfigError(`mcpTools(): \`${key}\` must be an array of tool names.`, {
        path: key,
      });
    }
  }
  if (prefix !== undefined && (typeof prefix !== 'string' || !PREFIX.test(prefix))) {
    throw new ConfigError(
      `mcpTools(): prefix ${JSON.stringify(prefix)} is invalid. Use 1 to 63 letters, digits, "_" or "-".`,
      { path: 'prefix' },
    );
  }
  const approval = needsApproval;
  if (
    approval !== undefined &&
    typeof approval !== 'boolean' &&
    typeof approval !== 'function' &&
    !(Array.isArray(approval) && approval.every((n) => typeof n === 'string'))
  ) {
    throw new ConfigError(
      'mcpTools(): `needsApproval` must be true, false, an array of tool names or a function.',
      { path: 'needsApproval' },
    );
  }
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !Number.isFinite(timeoutMs))
  ) {
    throw new ConfigError(
      `mcpTools(): \`timeoutMs\` must be a positive number of milliseconds, got ${timeoutMs}.`,
      { path: 'timeoutMs' },
    );
  }
  if (
    maxMessageBytes !== undefined &&
    (typeof maxMessageBytes !== 'number' ||
      !Number.isSafeInteger(maxMessageBytes) ||
      maxMessageBytes <= 0)
  ) {
    throw new ConfigError(
      `mcpTools(): \`maxMessageBytes\` must be a positive whole number of bytes, got ${maxMessageBytes}.`,
      { path: 'maxMessageBytes' },
    );
  }
}

/** The offered tools that `include` and `exclude` let through; names the server lacks throw. */
function selectTools(
  server: string,
  offered: readonly McpToolInfo[],
  { include, exclude, needsApproval }: McpToolsOptions,
): McpToolInfo[] {
  const names = new Set(offered.map((t) => t.name));
  const lists = [
    ['include', include],
    ['exclude', exclude],
    ['needsApproval', Array.isArray(needsApproval) ? needsApproval : undefined],
  ] as const;
  for (const [key, list] of lists) {
    const unknown = (list ?? []).filter((n) => !names.has(n));
    if (unknown.length > 0) {
      throw new ConfigError(
        `mcpTools(): \`${key}\` names ${unknown.map((n) => `"${n}"`).join(', ')}, which MCP ` +
          `server "${server}" does not offer. Its tools: ${[...names].join(', ') || '(none)'}.`,
        { path: key },
      );
    }
  }
  return offered.filter(
    (t) => (include === undefined || include.includes(t.name)) && !exclude?.includes(t.name),
  );
}

function toTool(
  connection: McpConnection,
  info: McpToolInfo,
  { prefix, needsApproval, timeoutMs = 60_000, effect }: McpToolsOptions,
): McpTool {
  let made: Tool<Record<string, unknown>>;
  try {
    made = tool({
      name: prefix === undefined ? info.name : `${prefix}_${info.name}`,
      description: info.description ?? '',
      parameters: info.inputSchema,
      timeoutMs,
      effect: effect ?? annotatedEffect(info),
      execute: async (args, ctx) => {
        const result = await connection.callTool(info.name, args, {
          signal: ctx.signal,
          timeoutMs,
        });
        const text = resultText(result);
        if (result.isError === true) {
          throw new Error(
            text === '' ? `MCP server "${connection.name}" reported an error.` : text,
          );
        }
        return text;
      },
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(
      `mcpTools(): MCP server "${connection.name}" offers tool "${info.name}", which cannot be ` +
        `used: ${error.message} Leave it out with exclude: [${JSON.stringify(info.name)}].`,
      { path: 'exclude', cause: error },
    );
  }
  if (needsApproval === undefined) return made;
  const approval =
    typeof needsApproval === 'boolean' || typeof needsApproval === 'function'
      ? needsApproval
      : needsApproval.includes(info.name);
  return Object.freeze({ ...made, needsApproval: approval });
}

/** A tool's effect from the server's annotations: `readOnlyHint` wins over `idempotentHint`. */
function annotatedEffect(info: McpToolInfo): ToolEffect {
  if (info.annotations?.readOnlyHint === true) return 'read';
  if (info.annotations?.idempotentHint === true) return 'idempotent';
  return 'once';
}
