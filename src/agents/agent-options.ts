import type { Instructions } from './agent-instructions.js';
import type { z } from 'zod';

import type { ChatClient } from '../models/chat-client.js';
import type { Handoff } from './handoff.js';
import type { Tool } from './tool.js';
import type { Timer, ToolErrorHandler, ToolMiddleware } from './tool-execution.js';

/** Options of `Agent`. */
export interface AgentOptions {
  /** A letter followed by up to 63 letters, digits, `_` or `-`. */
  name: string;
  /** @default 'An agent that provides assistance with ability to use tools.' */
  description?: string;
  /**
   * The system message of every model request; none when omitted or empty. A function is called
   * at every model call with the conversation state as it is then.
   */
  instructions?: string | Instructions;
  client: ChatClient;
  tools?: readonly Tool[];
  /** Targets (names or `Handoff`s) this agent may pass control to. */
  handoffs?: readonly (string | Handoff)[];
  /** Model calls per turn that may end in tool calls. @default 1 */
  maxToolIterations?: number;
  /** Answers become `StructuredMessage`s validated with this schema. */
  outputSchema?: z.ZodType;
  /** Layers around every (non-handoff) tool call; the first is the outermost. */
  middleware?: readonly ToolMiddleware[];
  /**
   * Stream model answers: text chunks reach `ctx.emit` as `ModelClientStreamingChunkEvent`s while
   * the model writes (when the client has `createStream`; otherwise it is called normally).
   * @default false (AutoGen's `model_client_stream`)
   */
  stream?: boolean;
  /** Schedules tool timeouts; pass a fake one in tests. @default setTimeout */
  timer?: Timer;
  /**
   * Sees each error a tool's `execute` throws, with its stack, and where (tool, call id, agent,
   * session); the model is told only `Tool "<name>" failed: <message>`. Timeouts and cancellations
   * are not thrown by the tool and are not reported here. An error this function throws fails the
   * agent's turn. @default none (the error also reaches the `execute_tool` span as an exception event)
   */
  onToolError?: ToolErrorHandler;
}
