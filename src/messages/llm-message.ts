import type { FunctionCall } from './message.js';

/**
 * One message of a model request, in the roles every chat-completions API understands. An
 * assistant message may carry `toolCalls`; each of them is answered by exactly one `tool` message
 * (matched by `toolCallId`) right after it. Views (`toModelMessages`) build these from a thread;
 * `ChatClient`s translate them to their provider's wire format. Views never set `name` (not every
 * provider has one: other agents are named in the text); a client sends one that is set by hand
 * as its provider allows (`OpenAIChatClient` as `name`, `AiSdkChatClient` as a `[name]: ` prefix).
 */
export type LLMMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string; name?: string }
  | { role: 'assistant'; content: string | null; name?: string; toolCalls?: FunctionCall[] }
  | { role: 'tool'; toolCallId: string; content: string };
