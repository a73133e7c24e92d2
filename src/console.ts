import type { TaskResult } from './engine/runnable.js';
import type {
  AgentMessage,
  HandoffMessage,
  ToolApprovalRequestEvent,
  ToolCallExecutionEvent,
  ToolCallRequestEvent,
} from './messages/message.js';
import { messageToText } from './messages/message-text.js';
import { visibleControls } from './visible-controls.js';

/** Options of `Console()`. */
export interface ConsoleOptions {
  /** End with a summary block: messages, finish reason, tokens, duration. @default false */
  outputStats?: boolean;
  /** Receives whole lines, each ending in `\n`. @default writes to process.stdout */
  write?: (line: string) => void;
  /** Colour the headers with ANSI escapes (for terminals). @default false */
  color?: boolean;
  /** Milliseconds, for the duration in the summary. @default performance.now */
  clock?: () => number;
  /**
   * The caller prompts for each call awaiting approval itself (as `baton run` does): the
   * `ToolApprovalRequestEvent` and those calls are not written. @default false
   */
  promptsApprovals?: boolean;
}

const dim = (text: string) => `\u001b[2m${text}\u001b[22m`;
const bold = (text: string) => `\u001b[1m${text}\u001b[22m`;

/** Usage already written with another message. */
const NO_USAGE = { promptTokens: 0, completionTokens: 0 };

/** The calls of a request and their results, held until it is known whether they were a handoff. */
interface PendingCalls {
  request: ToolCallRequestEvent;
  execution?: ToolCallExecutionEvent;
}

/**
 * Renders a `runStream()` for a terminal and resolves to the `TaskResult`. Each message is written
 * once, under a header with its final type and source (`---------- TextMessage (billing) ----------`):
 * streamed chunks appear under the header of the message they become, as they arrive, and that
 * message is not written again. A handoff is written as its `HandoffMessage` alone (the tool call
 * that made it and its result are the same fact). A pause is one short line naming the agent that
 * waits, with the question only when it was not just written. Token usage follows its message.
 * A call awaiting approval is written once, under the `ToolApprovalRequestEvent`.
 *
 * Every model-controlled string (texts, tool arguments and results, sources, the stop reason) is
 * written with its control characters made visible (`\x1b`, `\r`), whatever the output is, so no
 * message can move the cursor, clear the screen or rewrite a line; line breaks in a body stay.
 *
 * @example
 * const result = await Console(workflow.runStream('My invoice is wrong'), { outputStats: true });
 */
export async function Console(
  stream: AsyncIterable<AgentMessage | TaskResult>,
  options: ConsoleOptions = {},
): Promise<TaskResult> {
  const write = options.write ?? ((line: string) => void process.stdout.write(line));
  const clock = options.clock ?? (() => performance.now());
  const paint = options.color === true ? bold : (text: string) => text;
  const faint = options.color === true ? dim : (text: string) => text;
  const started = clock();
  const header = (type: string, source: string) =>
    write(`${paint(`---------- ${type} (${visibleControls(source)}) ----------`)}\n`);
  // A line of a body: tabs stay, a `\r` of a `\r\n` line end goes, every other control shows.
  const bodyLine = (line: string) =>
    write(
      `${visibleControls(line.endsWith('\r') ? line.slice(0, -1) : line, { keepLines: true })}\n`,
    );
  const usageLine = (usage: AgentMessage['usage']) => {
    if (usage !== undefined && usage.promptTokens + usage.completionTokens > 0) {
      write(
        `${faint(`[Prompt tokens: ${usage.promptTokens}, Completion tokens: ${usage.completionTokens}]`)}\n`,
      );
    }
  };
  // What each source last said, so that a pause does not repeat the answer it follows.
  const lastText = new Map<string, string>();
  const print = (message: AgentMessage, usage = message.usage) => {
    header(message.type, message.source);
    const text = consoleText(message);
    for (const line of text.split('\n')) bodyLine(line);
    lastText.set(message.source, text);
    usageLine(usage);
  };

  let streamingFrom: string | undefined;
  let streamed = '';
  let partial = '';
  const flushChunks = () => {
    if (partial !== '') bodyLine(partial);
    partial = '';
    streamingFrom = undefined;
  };

  let pending: PendingCalls | undefined;
  const flushPending = () => {
    if (pending === undefined) return;
    const { request, execution } = pending;
    pending = undefined;
    print(request);
    if (execution !== undefined) print(execution);
  };
  /** The calls awaiting approval are written under the approval request only. */
  const printApprovals = (approvals: ToolApprovalRequestEvent) => {
    const shown = options.promptsApprovals !== true;
    const calls = pending?.request.source === approvals.source ? pending : undefined;
    if (calls === undefined) {
      flushPending();
      if (shown) print(approvals);
      return;
    }
    pending = undefined;
    const awaiting = new Set(approvals.content.map((c) => c.id));
    const others = calls.request.content.filter((c) => !awaiting.has(c.id));
    const usage = calls.request.usage ?? approvals.usage;
    if (others.length > 0) print({ ...calls.request, content: others }, shown ? NO_USAGE : usage);
    if (calls.execution !== undefined) print(calls.execution);
    if (shown) print(approvals, usage);
  };
  /** The handoff's own call is dropped; any other call of the same request is still written. */
  const printHandoff = (handoff: HandoffMessage) => {
    const calls = pending;
    pending = undefined;
    const handoffIds = new Set(
      (calls?.execution?.content ?? [])
        .filter((r) => !r.isError && r.content === handoff.content)
        .map((r) => r.callId),
    );
    if (calls !== undefined && handoffIds.size > 0) {
      const others = calls.request.content.filter((c) => !handoffIds.has(c.id));
      if (others.length > 0) print({ ...calls.request, content: others }, NO_USAGE);
      const results = (calls.execution?.content ?? []).filter((r) => !handoffIds.has(r.callId));
      if (calls.execution !== undefined && results.length > 0) {
        print({ ...calls.execution, content: results });
      }
      print(handoff, calls.request.usage ?? handoff.usage);
    } else {
      if (calls !== undefined) {
        pending = calls;
        flushPending();
      }
      print(handoff);
    }
  };

  let result: TaskResult | undefined;
  for await (const item of stream) {
    if (item.type === 'TaskResult') {
      result = item;
      continue;
    }
    if (item.type === 'ModelClientStreamingChunkEvent') {
      flushPending();
      if (streamingFrom !== item.source) {
        flushChunks();
        // Streamed text becomes the agent's TextMessage: the header names that, not the chunks.
        header('TextMessage', item.source);
        streamingFrom = item.source;
        streamed = '';
      }
      streamed += item.content;
      const lines = (partial + item.content).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) bodyLine(line);
      continue;
    }
    if (item.type === 'ToolCallRequestEvent') {
      flushChunks();
      flushPending();
      pending = { request: item };
      continue;
    }
    if (
      item.type === 'ToolCallExecutionEvent' &&
      pending?.request.source === item.source &&
      pending.execution === undefined
    ) {
      pending.execution = item;
      continue;
    }
    if (item.type === 'HandoffMessage' && pending?.request.source === item.source) {
      printHandoff(item);
      continue;
    }
    if (item.type === 'ToolApprovalRequestEvent') {
      flushChunks();
      printApprovals(item);
      continue;
    }
    flushPending();
    if (streamingFrom === item.source && item.type === 'TextMessage') {
      flushChunks();
      lastText.set(item.source, streamed);
      usageLine(item.usage);
      continue;
    }
    flushChunks();
    if (item.type === 'UserInputRequestedEvent') {
      const asked = item.content.trim();
      write(
        `${faint(
          asked === '' || asked === lastText.get(item.source)?.trim()
            ? `(${visibleControls(item.source)} awaits your reply)`
            : `(${visibleControls(item.source)} asks: ${visibleControls(asked.split('\n').join(' '))})`,
        )}\n`,
      );
      continue;
    }
    print(item);
  }
  flushPending();
  flushChunks();
  if (result === undefined) {
    throw new Error(
      'Console(): the stream ended without a TaskResult. Pass runStream() of a team or workflow.',
    );
  }
  if (options.outputStats === true) {
    const lines = summaryLines({
      messages: result.messages.length,
      finishReason: result.stopReason ?? result.status,
      usage: result.usage,
      seconds: (clock() - started) / 1000,
    });
    lines[0] = paint(lines[0] ?? '');
    for (const line of lines) write(`${line}\n`);
  }
  return result;
}

/** The summary block's lines (without newlines); `Console` ends with them under `outputStats`. */
export function summaryLines(summary: {
  messages: number;
  finishReason: string;
  usage: { promptTokens: number; completionTokens: number };
  seconds: number;
}): string[] {
  return [
    '---------- Summary ----------',
    `Number of messages: ${summary.messages}`,
    `Finish reason: ${visibleControls(summary.finishReason)}`,
    `Total prompt tokens: ${summary.usage.promptTokens}`,
    `Total completion tokens: ${summary.usage.completionTokens}`,
    `Duration: ${summary.seconds.toFixed(2)} seconds`,
  ];
}

/** A message's text for the console; calls awaiting approval show the id to decide them by. */
function consoleText(message: AgentMessage): string {
  if (message.type !== 'ToolApprovalRequestEvent') return messageToText(message);
  return message.content
    .map(
      (c) =>
        `Approval needed: ${visibleControls(c.name)}(${visibleControls(c.arguments)}) ` +
        `[call ${visibleControls(c.id)}: approve or reject it]`,
    )
    .join('\n');
}
