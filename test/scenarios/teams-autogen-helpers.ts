// Test doubles for the suites ported from AutoGen's group-chat tests
// (python/packages/autogen-agentchat/tests/test_group_chat.py). They use only the public entry.
import {
  type AgentContext,
  type AgentMessage,
  type AgentResponse,
  type ChatAgent,
  type ChatMessage,
  handoffMessage,
  isChatMessage,
  messageToText,
  type StopMessage,
  type ScriptedStep,
  stopMessage,
  structuredMessage,
  type TaskResult,
  TerminationCondition,
  textMessage,
} from '../../src/index.js';

export const TASK = "Write a program that prints 'Hello, world!'";

/** What a test double saw on one turn, in call order across all agents of a test. */
export interface Turn {
  readonly agent: string;
  readonly newMessages: string[];
}

/** The text AutoGen's `_EchoAgent` answers: the first new message, else its own last answer. */
function echoText(name: string, ctx: AgentContext): string {
  const first = ctx.newMessages[0];
  if (first !== undefined) return messageToText(first);
  const own = ctx.conversation.filter((m) => m.source === name && isChatMessage(m)).at(-1);
  if (own === undefined) throw new Error(`Echo agent "${name}" has nothing to echo.`);
  return messageToText(own);
}

function record(turns: Turn[] | undefined, name: string, ctx: AgentContext): void {
  turns?.push({ agent: name, newMessages: ctx.newMessages.map(messageToText) });
}

/** AutoGen's `_EchoAgent`: answers with the text of the first chat message it has not seen. */
export function echoAgent(name: string, turns?: Turn[]): ChatAgent {
  return {
    name,
    description: `echo agent ${name}`,
    respond: async (ctx) => {
      record(turns, name, ctx);
      return { chatMessage: textMessage({ source: name, content: echoText(name, ctx) }) };
    },
  };
}

/** AutoGen's `_StopAgent`: echoes until its `stopAt`-th call, which answers `StopMessage("TERMINATE")`. */
export function stopAgent(name: string, stopAt: number, turns?: Turn[]): ChatAgent {
  let calls = 0;
  return {
    name,
    description: `stop agent ${name}`,
    respond: async (ctx) => {
      record(turns, name, ctx);
      calls++;
      const chatMessage: ChatMessage =
        calls < stopAt
          ? textMessage({ source: name, content: echoText(name, ctx) })
          : stopMessage({ source: name, content: 'TERMINATE' });
      return { chatMessage };
    },
  };
}

/** AutoGen's `_FlakyAgent`: every turn throws. */
export function flakyAgent(name: string): ChatAgent {
  return {
    name,
    description: `flaky agent ${name}`,
    respond: async () => {
      throw new Error('I am a flaky agent...');
    },
  };
}

/**
 * Aborts `controller` on its first turn and waits for the abort to reach it (a turn in flight when
 * the caller cancels); later turns answer "done".
 */
export function abortingAgent(name: string, controller: AbortController): ChatAgent {
  let interrupted = false;
  return {
    name,
    description: `${name} is interrupted on its first turn`,
    respond: async (ctx) => {
      if (!interrupted) {
        interrupted = true;
        controller.abort();
        await new Promise((_resolve, reject) => {
          if (ctx.signal.aborted) reject(ctx.signal.reason);
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
        });
      }
      return { chatMessage: textMessage({ source: name, content: 'done' }) };
    },
  };
}

/** AutoGen's `_HandOffAgent`: always hands off to `next` with "Transferred to <next>.". */
export function handoffAgent(name: string, next: string, turns?: Turn[]): ChatAgent {
  return {
    name,
    description: `${name} hands off to ${next}`,
    respond: async (ctx): Promise<AgentResponse> => {
      record(turns, name, ctx);
      return {
        chatMessage: handoffMessage({
          source: name,
          target: next,
          content: `Transferred to ${next}.`,
        }),
      };
    },
  };
}

/** AutoGen's `_StructuredAgent`: answers with a `StructuredMessage`. */
export function structuredAgent(name: string): ChatAgent {
  return {
    name,
    description: `structured agent ${name}`,
    respond: async () => ({
      chatMessage: structuredMessage({ source: name, content: { message: 'Structured hello' } }),
    }),
  };
}

/** AutoGen's `_FlakyTermination`: its `raiseOnCount`-th check throws. */
export class FlakyTermination extends TerminationCondition {
  readonly #raiseOnCount: number;
  #count = 0;

  constructor(raiseOnCount: number) {
    super();
    this.#raiseOnCount = raiseOnCount;
  }

  get terminated(): boolean {
    return false;
  }

  async check(_messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.#count++;
    if (this.#count === this.#raiseOnCount) throw new Error('I am a flaky termination...');
    return null;
  }

  reset(): void {}
}

/** Steps that repeat, so that one client serves a team across `reset()` (AutoGen's `model_client.reset()`). */
export function cyclic(steps: readonly ScriptedStep[]): (_: unknown, i: number) => ScriptedStep {
  return (_request, i) => steps[i % steps.length] as ScriptedStep;
}

/** A message without its generated `id` and `createdAt` (also inside a handoff's context). */
export function shape(message: AgentMessage): Record<string, unknown> {
  const { id: _id, createdAt: _createdAt, ...rest } = message;
  if (rest.type === 'HandoffMessage' && rest.context !== undefined) {
    return { ...rest, context: rest.context.map(shape) };
  }
  return rest;
}

/** A TaskResult without generated ids, for comparing two runs (AutoGen's `compare_task_results`). */
export function outcome(result: TaskResult): Record<string, unknown> {
  return { ...result, messages: result.messages.map(shape) };
}

/** Consumes a `runStream()`: the messages before the TaskResult, and the TaskResult. */
export async function drain(
  stream: AsyncIterable<AgentMessage | TaskResult>,
): Promise<{ streamed: AgentMessage[]; result: TaskResult }> {
  const streamed: AgentMessage[] = [];
  let result: TaskResult | undefined;
  for await (const item of stream) {
    if (result !== undefined) throw new Error('runStream() yielded after its TaskResult.');
    if (item.type === 'TaskResult') result = item;
    else streamed.push(item);
  }
  if (result === undefined) throw new Error('runStream() ended without a TaskResult.');
  return { streamed, result };
}

export const sources = (result: TaskResult): string[] => result.messages.map((m) => m.source);
export const types = (result: TaskResult): string[] => result.messages.map((m) => m.type);
export const texts = (result: TaskResult): string[] => result.messages.map(messageToText);

/** Collects `Console`'s lines. */
export function lineSink(): { lines: string[]; write: (line: string) => void } {
  const lines: string[] = [];
  return { lines, write: (line) => void lines.push(line) };
}
