import type { ChatClient } from '../models/chat-client.js';
import type { AgentOptions } from './agent-options.js';
import type { Tool } from './tool.js';
import type { ToolMiddleware } from './tool-execution.js';

/** The options each `Agent` was built with, so that a copy can be made with another model. */
export const agentOptions = new WeakMap<object, AgentOptions>();

/** What a copy of an agent changes: its model client, and middleware around its tool calls. */
export interface Rewiring {
  /** The copy's client, given the original's. */
  readonly client: (original: ChatClient) => ChatClient;
  /** Layers outside the agent's own middleware (the first is the outermost). @default none */
  readonly middleware?: readonly ToolMiddleware[];
  /** Whether the agent's own middleware stays, inside `middleware`. @default true */
  readonly ownMiddleware?: boolean;
  /** The copy's tools, given the original's. @default the same tools */
  readonly tools?: (original: readonly Tool[]) => readonly Tool[];
}

/**
 * The options of a copy of `agent` (an `Agent`) with its model and tool calls rewired, or
 * undefined for any other `ChatAgent`. Replays and routing evals use it; the agent is unchanged.
 */
export function rewiredOptions(agent: object, rewiring: Rewiring): AgentOptions | undefined {
  const options = agentOptions.get(agent);
  if (options === undefined) return undefined;
  const own = rewiring.ownMiddleware === false ? [] : (options.middleware ?? []);
  const tools = rewiring.tools === undefined ? options.tools : rewiring.tools(options.tools ?? []);
  return {
    ...options,
    client: rewiring.client(options.client),
    middleware: [...(rewiring.middleware ?? []), ...own],
    ...(tools === undefined ? {} : { tools }),
  };
}
