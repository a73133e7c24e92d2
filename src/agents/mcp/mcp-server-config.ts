import { ConfigError } from '../../errors.js';

/** An MCP server that `mcpTools()` starts as a child process and talks to over stdio. */
export interface McpStdioServerConfig {
  /** The program to run, such as `npx` or `process.execPath`. */
  command: string;
  args?: readonly string[];
  /**
   * Environment variables of the server, added to a safe few inherited from this process
   * (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`). @default {}
   */
  env?: Readonly<Record<string, string>>;
  /** The server's working directory. @default this process's */
  cwd?: string;
}

/** An MCP server that `mcpTools()` reaches over Streamable HTTP. */
export interface McpHttpServerConfig {
  /** The server's MCP endpoint, such as `http://127.0.0.1:3001/mcp`. */
  url: string | URL;
  /** Sent with every request, such as `{ authorization: 'Bearer …' }`. @default {} */
  headers?: Readonly<Record<string, string>>;
}

/** Where `mcpTools()` finds an MCP server: a command to start (stdio) or a URL (Streamable HTTP). */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** A server config that has been checked, with a label for messages (`node server.js`, a URL). */
export type CheckedServerConfig =
  | {
      kind: 'stdio';
      label: string;
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd?: string;
    }
  | { kind: 'http'; label: string; url: URL; headers: Record<string, string> };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isStringMap = (value: unknown): value is Record<string, string> =>
  isRecord(value) && Object.values(value).every((v) => typeof v === 'string');

const fail = (detail: string, path?: string): never => {
  throw new ConfigError(`mcpTools(): ${detail}`, path === undefined ? undefined : { path });
};

/** Checks a server config before anything is started; a bad one throws `ConfigError`. */
export function checkServerConfig(server: unknown): CheckedServerConfig {
  if (!isRecord(server) || 'command' in server === 'url' in server) {
    return fail(
      'the server needs either `command` (a program to start over stdio) or `url` ' +
        '(a Streamable HTTP endpoint), not both or neither.',
    );
  }
  if ('url' in server) {
    const { url, headers = {} } = server;
    let parsed: URL | undefined;
    try {
      parsed = new URL(url instanceof URL ? url.href : String(url));
    } catch {
      parsed = undefined;
    }
    if (
      (typeof url !== 'string' && !(url instanceof URL)) ||
      parsed === undefined ||
      (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    ) {
      return fail(`url ${JSON.stringify(String(url))} is not an http(s) URL.`, 'url');
    }
    if (!isStringMap(headers)) return fail('`headers` must map names to strings.', 'headers');
    // The label goes into messages a model sees: never credentials or query parameters.
    return {
      kind: 'http',
      label: `${parsed.origin}${parsed.pathname}`,
      url: parsed,
      headers: { ...headers },
    };
  }
  const { command, args = [], env = {}, cwd } = server;
  if (typeof command !== 'string' || command.trim() === '') {
    return fail(`command must be a non-empty string, got ${JSON.stringify(command)}.`, 'command');
  }
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
    return fail('`args` must be an array of strings.', 'args');
  }
  if (!isStringMap(env)) return fail('`env` must map names to strings.', 'env');
  if (cwd !== undefined && typeof cwd !== 'string') {
    return fail('`cwd` must be a directory path.', 'cwd');
  }
  return {
    kind: 'stdio',
    label: [command, ...args].join(' '),
    command,
    args: [...args],
    env: { ...env },
    ...(cwd === undefined ? {} : { cwd }),
  };
}
