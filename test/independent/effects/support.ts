// Shared builders for the independent tool-effects suite (API.md §17), public API only.
//
// Every tool appends `<name>:<ctx.callId>` to a ledger (an array, or a file for tools that run in
// another process) before it does anything else, so a test counts executions exactly, outside
// the engine.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

import { z } from 'zod';

import {
  Agent,
  type AgentMessage,
  type CheckpointStore,
  HandoffBuilder,
  type ModelRequest,
  type ModelResult,
  ScriptedChatClient,
  SessionBusyError,
  type TaskResult,
  tool,
} from '../../../src/index.js';

export type Effect = 'read' | 'idempotent' | 'once';

/** A scripted model step that calls several tools in one response. */
export function calls(...list: [id: string, name: string, args?: unknown][]): ModelResult {
  return {
    content: null,
    toolCalls: list.map(([id, name, args]) => ({
      id,
      name,
      arguments: JSON.stringify(args ?? {}),
    })),
    usage: { promptTokens: 0, completionTokens: 0 },
  };
}

export const call = (id: string, name: string, args: unknown = {}) => ({
  id,
  name,
  arguments: JSON.stringify(args),
});

/** Where tool executions are written: an in-memory list or a file shared with a child process. */
export interface Ledger {
  add(line: string): void;
  lines(): string[];
}

export function memoryLedger(): Ledger {
  const lines: string[] = [];
  return { add: (line) => void lines.push(line), lines: () => [...lines] };
}

export function fileLedger(path: string): Ledger {
  return {
    add: (line) => appendFileSync(path, `${line}\n`),
    lines: () =>
      existsSync(path)
        ? readFileSync(path, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
        : [],
  };
}

export interface ToolSpec {
  name: string;
  effect?: Effect;
  /** What the tool does after writing the ledger: answer, throw, or hang until its signal aborts. */
  behaviour?: 'answer' | 'throw' | 'hang' | ((ctx: { signal: AbortSignal }) => Promise<string>);
  /** Called right after the ledger line is written (e.g. to abort the run). */
  onStart?: () => void;
  needsApproval?: boolean;
}

/** A tool whose executions land in `ledger`; it answers `<name> done`. */
export function ledgerTool(ledger: Ledger, spec: ToolSpec) {
  const behaviour = spec.behaviour ?? 'answer';
  return tool({
    name: spec.name,
    description: `The ${spec.name} tool.`,
    parameters: z.object({}).passthrough(),
    ...(spec.effect === undefined ? {} : { effect: spec.effect }),
    ...(spec.needsApproval === undefined ? {} : { needsApproval: spec.needsApproval }),
    execute: async (_args, ctx) => {
      ledger.add(`${spec.name}:${ctx.callId}`);
      spec.onStart?.();
      if (behaviour === 'throw') throw new Error(`${spec.name} failed`);
      if (behaviour === 'hang') {
        await aborted(ctx.signal);
        throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error('aborted');
      }
      if (typeof behaviour === 'function') return behaviour(ctx);
      return `${spec.name} done`;
    },
  });
}

export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

/** One agent `desk` with the given tools, scripted, as a one-participant HandoffBuilder workflow. */
export function deskWorkflow(options: {
  tools: ReturnType<typeof tool>[];
  steps: ConstructorParameters<typeof ScriptedChatClient>[0];
  store?: CheckpointStore | undefined;
  name?: string;
  maxToolIterations?: number;
}) {
  const client = new ScriptedChatClient(options.steps);
  const desk = new Agent({
    name: 'desk',
    client,
    tools: options.tools,
    maxToolIterations: options.maxToolIterations ?? 4,
  });
  let builder = new HandoffBuilder({
    name: options.name ?? 'effects',
    participants: [desk],
  }).coordinator(desk);
  if (options.store) builder = builder.withCheckpointing(options.store);
  return { workflow: builder.build(), client };
}

/** A model that answers `Done: <tool replies>` after tool results, else calls `batch`. */
export function batchThenDone(batch: ModelResult) {
  return (request: ModelRequest): ModelResult => {
    // Tool replies after the model's last message: this call answers them (a text reply of the
    // customer may come after them).
    if (toolReplies(request).length > 0) {
      const replies = toolReplies(request)
        .map((r) => r.content)
        .join(' | ');
      return { content: `Done: ${replies}`, toolCalls: [], usage: zero };
    }
    return batch;
  };
}

const zero = { promptTokens: 0, completionTokens: 0 };

/** The tool messages (role "tool") of a model request, as {toolCallId, content}, in order. */
export function toolReplies(request: {
  messages: readonly unknown[];
}): { toolCallId: string; content: string }[] {
  const all = request.messages as { role: string; toolCallId?: string; content?: string }[];
  // Only the replies after the last assistant message: the ones this model call answers.
  let lastAssistant = -1;
  all.forEach((m, i) => {
    if (m.role === 'assistant') lastAssistant = i;
  });
  return all
    .slice(lastAssistant + 1)
    .filter((m) => m.role === 'tool')
    .map((m) => ({ toolCallId: m.toolCallId ?? '', content: m.content ?? '' }));
}

export const types = (messages: readonly AgentMessage[]) =>
  messages.map((m) => `${m.type}:${m.source}`);

export function ofType<T extends AgentMessage['type']>(
  messages: readonly AgentMessage[],
  type: T,
): Extract<AgentMessage, { type: T }>[] {
  return messages.filter((m) => m.type === type) as Extract<AgentMessage, { type: T }>[];
}

/** `Tool call "<name>" may or may not have completed; it was not retried` (+ `: <reason>`). */
export const notRetried = (name: string, reason?: string) =>
  `Tool call "${name}" may or may not have completed; it was not retried${reason === undefined ? '' : `: ${reason}`}`;

/**
 * `session.run(...)` again while a dead process's lease may still hold the session
 * (§7: it expires within seconds); any other rejection is the test's failure.
 */
export async function runWhenFree(
  run: () => Promise<TaskResult>,
  attempts = 200,
): Promise<TaskResult> {
  for (let i = 0; ; i++) {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof SessionBusyError) || i >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Counts of each `<name>` in ledger lines `<name>:<callId>`. */
export function counts(lines: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of lines) {
    const name = line.split(':')[0]!;
    out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}
