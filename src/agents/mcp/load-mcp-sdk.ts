import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  deserializeMessage,
  serializeMessage,
} from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { ResultSchema } from '@modelcontextprotocol/sdk/types.js';

import { ConfigError } from '../../errors.js';
import { codeOf } from '../../unknown-value.js';

/** The parts of `@modelcontextprotocol/sdk` that MCP tools use. */
export interface McpSdk {
  Client: typeof Client;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  getDefaultEnvironment: typeof getDefaultEnvironment;
  deserializeMessage: typeof deserializeMessage;
  serializeMessage: typeof serializeMessage;
  /** Any JSON-RPC result object: tool results are read by `resultText`, not by MCP's schema. */
  ResultSchema: typeof ResultSchema;
}

const PACKAGE = '@modelcontextprotocol/sdk';

/** Imports the SDK's modules; only `mcpTools()` calls this, so the peer stays optional. */
async function importSdk(): Promise<McpSdk> {
  const [client, http, stdio, framing, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/shared/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Client: client.Client,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    deserializeMessage: framing.deserializeMessage,
    serializeMessage: framing.serializeMessage,
    ResultSchema: types.ResultSchema,
  };
}

/**
 * Loads the MCP SDK, an optional peer dependency. When it is not installed the error says so and
 * gives the install command; any other failure is rethrown as it is.
 */
export async function loadMcpSdk(load: () => Promise<McpSdk> = importSdk): Promise<McpSdk> {
  try {
    return await load();
  } catch (error) {
    const code = codeOf(error);
    const message = error instanceof Error ? error.message : '';
    if (
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      message.includes(PACKAGE)
    ) {
      throw new ConfigError(
        `mcpTools() needs the optional peer dependency "${PACKAGE}", which is not installed. ` +
          `Install it with: npm install ${PACKAGE}`,
        { cause: error },
      );
    }
    throw error;
  }
}
