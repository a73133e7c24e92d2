import { describe, expect, it } from 'vitest';

import { Console } from './console.js';
import type { TaskResult } from './engine/runnable.js';
import type { AgentMessage } from './messages/message.js';
import {
  streamingChunkEvent,
  textMessage,
  toolApprovalRequestEvent,
  toolCallExecutionEvent,
  toolCallRequestEvent,
  userInputRequestedEvent,
} from './messages/message-factories.js';

const result = (stopReason: string | null): TaskResult => ({
  type: 'TaskResult',
  messages: [],
  stopReason,
  status: stopReason === null ? 'awaiting_input' : 'terminated',
  sessionId: 's',
  usage: { promptTokens: 0, completionTokens: 0 },
});

async function rendered(
  items: readonly AgentMessage[],
  options: { stopReason?: string; promptsApprovals?: boolean } = {},
): Promise<string> {
  async function* stream(): AsyncGenerator<AgentMessage | TaskResult> {
    yield* items;
    yield result(options.stopReason ?? null);
  }
  const lines: string[] = [];
  await Console(stream(), {
    write: (line) => lines.push(line),
    outputStats: options.stopReason !== undefined,
    clock: () => 0,
    ...(options.promptsApprovals === undefined
      ? {}
      : { promptsApprovals: options.promptsApprovals }),
  });
  return lines.join('');
}

const refund = { id: 'c1', name: 'refund', arguments: '{"amount":5000,\r"note":"amount 5"}' };

describe('Console(): model-controlled text', () => {
  it('shows control characters in messages, chunks, sources and stop reasons instead of sending them', async () => {
    const out = await rendered(
      [
        textMessage({
          source: 'billing',
          content: 'line one\r\nline\ttwo\x1b[2J\x1b[8mhidden\rover',
        }),
        streamingChunkEvent({ source: 'tech', content: 'chunk \x1b]0;title\x07 a\r\nb' }),
        textMessage({ source: 'tech', content: 'chunk \x1b]0;title\x07 a\r\nb' }),
        textMessage({ source: 'evil\x1b[1A\rname', content: 'ok \u202e0005' }),
        userInputRequestedEvent({ source: 'billing', requestId: 'r', content: 'Sure?\rNo\x9b2K' }),
      ],
      { stopReason: 'Guardrail "g" tripped: \x1b[2Jx' },
    );
    expect(out).toBe(
      '---------- TextMessage (billing) ----------\n' +
        'line one\n' +
        'line\ttwo\\x1b[2J\\x1b[8mhidden\\rover\n' +
        '---------- TextMessage (tech) ----------\n' +
        'chunk \\x1b]0;title\\x07 a\n' +
        'b\n' +
        '---------- TextMessage (evil\\x1b[1A\\rname) ----------\n' +
        'ok \\u202e0005\n' +
        '(billing asks: Sure?\\rNo\\x9b2K)\n' +
        '---------- Summary ----------\n' +
        'Number of messages: 0\n' +
        'Finish reason: Guardrail "g" tripped: \\x1b[2Jx\n' +
        'Total prompt tokens: 0\n' +
        'Total completion tokens: 0\n' +
        'Duration: 0.00 seconds\n',
    );
  });

  it('writes a call awaiting approval once, under the approval request, on one line', async () => {
    const lookup = { id: 'c0', name: 'lookup', arguments: '{"id":"\\u001b"}' };
    const usage = { promptTokens: 5, completionTokens: 2 };
    const items = [
      toolCallRequestEvent({ source: 'billing', content: [lookup, refund], usage }),
      toolCallExecutionEvent({
        source: 'billing',
        content: [{ callId: 'c0', name: 'lookup', content: 'found', isError: false }],
      }),
      toolApprovalRequestEvent({ source: 'billing', content: [refund] }),
    ];
    expect(await rendered(items)).toBe(
      '---------- ToolCallRequestEvent (billing) ----------\n' +
        'lookup({"id":"\\u001b"})\n' +
        '---------- ToolCallExecutionEvent (billing) ----------\n' +
        'lookup: found\n' +
        '---------- ToolApprovalRequestEvent (billing) ----------\n' +
        'Approval needed: refund({"amount":5000,\\r"note":"amount 5"}) [call c1: approve or reject it]\n' +
        '[Prompt tokens: 5, Completion tokens: 2]\n',
    );
    // A caller that prompts for each call itself (baton run) gets neither the event nor the call.
    const alone = [
      toolCallRequestEvent({ source: 'billing', content: [refund], usage }),
      toolApprovalRequestEvent({ source: 'billing', content: [refund] }),
    ];
    expect(await rendered(alone, { promptsApprovals: true })).toBe('');
  });
});
