import type { TaskResult } from './engine/runnable.js';
import type { AgentMessage } from './messages/message.js';
import { messageToText } from './messages/message-text.js';

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
}

const dim = (text: string) => `\u001b[2m${text}\u001b[22m`;
const bold = (text: string) => `\u001b[1m${text}\u001b[22m`;

/**
 * Renders a `runStream()` for a terminal: a header per message with its type and source, its
 * text, token usage when present, streamed chunks as they arrive; resolves to the `TaskResult`.
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
    write(`${paint(`---------- ${type} (${source}) ----------`)}\n`);

  let streamingFrom: string | undefined;
  let partial = '';
  const flushChunks = () => {
    if (partial !== '') write(`${partial}\n`);
    partial = '';
    streamingFrom = undefined;
  };

  let result: TaskResult | undefined;
  for await (const item of stream) {
    if (item.type === 'TaskResult') {
      result = item;
      continue;
    }
    if (item.type === 'ModelClientStreamingChunkEvent') {
      if (streamingFrom !== item.source) {
        flushChunks();
        header(item.type, item.source);
        streamingFrom = item.source;
      }
      const lines = (partial + item.content).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) write(`${line}\n`);
      continue;
    }
    const streamed = streamingFrom === item.source && item.type === 'TextMessage';
    if (streamed) flushChunks();
    else {
      flushChunks();
      header(item.type, item.source);
      for (const line of consoleText(item).split('\n')) write(`${line}\n`);
    }
    if (item.usage !== undefined && item.usage.promptTokens + item.usage.completionTokens > 0) {
      write(
        `${faint(`[Prompt tokens: ${item.usage.promptTokens}, Completion tokens: ${item.usage.completionTokens}]`)}\n`,
      );
    }
  }
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
    `Finish reason: ${summary.finishReason}`,
    `Total prompt tokens: ${summary.usage.promptTokens}`,
    `Total completion tokens: ${summary.usage.completionTokens}`,
    `Duration: ${summary.seconds.toFixed(2)} seconds`,
  ];
}

/** A message's text for the console; calls awaiting approval show the id to decide them by. */
function consoleText(message: AgentMessage): string {
  if (message.type !== 'ToolApprovalRequestEvent') return messageToText(message);
  return message.content
    .map((c) => `Approval needed: ${c.name}(${c.arguments}) [call ${c.id}: approve or reject it]`)
    .join('\n');
}
