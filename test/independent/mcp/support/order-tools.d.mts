// Types of order-tools.mjs (plain JavaScript so that the stdio server starts with bare node).
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';

/** The name the order-desk servers report in `initialize` (`serverInfo.name`). */
export declare const ORDER_SERVER_NAME: string;
/** A 1×1 transparent PNG, base64. It must never reach the model as text. */
export declare const PNG_BASE64: string;
/** A few bytes of audio, base64. */
export declare const WAV_BASE64: string;

/** A JSON Schema object as the suite writes them. */
export interface ObjectSchema {
  type: 'object';
  [keyword: string]: unknown;
}
/** JSON Schema of `lookup_order`: a required string, an enum, a bounded integer, an array, no extras. */
export declare const LOOKUP_ORDER_SCHEMA: ObjectSchema;
/** JSON Schema of `schedule_pickup`: draft 2020-12 with `$defs` and `$ref`, as MCP's default dialect. */
export declare const SCHEDULE_PICKUP_SCHEMA: ObjectSchema;
/** Every tool, in the order the servers list them. */
export declare const ORDER_TOOLS: McpTool[];

/** One `tools/call` as the server received it. */
export interface RecordedCall {
  name: string;
  arguments: Record<string, unknown> | undefined;
}

/** What a server built by `orderServer` does besides answering. */
export interface OrderServerHooks {
  /** Called first for every `tools/call`, before the tool runs. */
  onCall(call: RecordedCall): void;
  /** What `wait_for_release` waits for; it never answers when absent. */
  release?: (signal: AbortSignal) => Promise<string>;
  /** What `crash_server` does (the stdio server exits); a JSON-RPC error when absent. */
  crash?: () => void;
  /** Runs after `onCall` and before the tool answers, with the server (to talk to the client). */
  beforeAnswer?: (server: Server) => Promise<void>;
}

/** How an order-desk server lists its tools. */
export interface OrderServerOptions {
  /** Its `serverInfo.name`. @default ORDER_SERVER_NAME */
  name?: string;
  /** Lists the tools in pages of this size (with `nextCursor`). @default all on one page */
  pageSize?: number;
}

/** A low-level SDK server listing `ORDER_TOOLS` and answering them. */
export declare function orderServer(hooks: OrderServerHooks, options?: OrderServerOptions): Server;
