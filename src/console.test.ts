import { describe, expect, it } from 'vitest';

import { Console } from './console.js';
import type { TaskResult } from './engine/runnable.js';
import type { AgentMessage } from './messages/message.js';
import {
  handoffMessage,
  streamingChunkEvent,
  textMessage,
  toolCallExecutionEvent,
  toolCallRequestEvent,
  userInputRequestedEvent,
} from './messages/message-factories.js';

const done: TaskResult = {
  type: 'TaskResult',
  messages: [],
  stopReason: null,
  status: 'awaiting_input',
  sessionId: 's',
  usage: { promptTokens: 0, completionTokens: 0 },
};

async function* streamOf(
  items: readonly AgentMessage[],
): AsyncGenerator<AgentMessage | TaskResult> {
  yield* items;
  yield done;
}

/** Everything `Console` writes for `items`, as one string. */
async function rendered(items: readonly AgentMessage[]): Promise<string> {
  const lines: string[] = [];
  await Console(streamOf(items), { write: (line) => lines.push(line) });
  return lines.join('');
}

const ANSWER = 'Invoice INV-1 was charged twice. Shall I refund one charge?';
const transferred = 'Transferred to billing, adopting the role of billing immediately.';
const handoffCall = { id: 'h1', name: 'handoff_to_billing', arguments: '{}' };
const handoffResult = {
  callId: 'h1',
  name: 'handoff_to_billing',
  content: transferred,
  isError: false,
};

describe('Console()', () => {
  it('writes streamed chunks under the header of the TextMessage they become, and that message once', async () => {
    const usage = { promptTokens: 12, completionTokens: 8 };
    const out = await rendered([
      streamingChunkEvent({ source: 'billing', content: 'Invoice INV-1 was charged ' }),
      streamingChunkEvent({ source: 'billing', content: 'twice. Shall I refund one charge?' }),
      textMessage({ source: 'billing', content: ANSWER, usage }),
      userInputRequestedEvent({ source: 'billing', requestId: 'r1', content: ANSWER }),
    ]);
    expect(out).toBe(
      '---------- TextMessage (billing) ----------\n' +
        `${ANSWER}\n` +
        '[Prompt tokens: 12, Completion tokens: 8]\n' +
        '(billing awaits your reply)\n',
    );
  });

  it('shows a pause as one short line, with the question only when it was not just written', async () => {
    const out = await rendered([
      textMessage({ source: 'billing', content: ANSWER }),
      userInputRequestedEvent({ source: 'billing', requestId: 'r1', content: ANSWER }),
      userInputRequestedEvent({
        source: 'tech',
        requestId: 'r2',
        content: 'Which router?\nModel?',
      }),
    ]);
    expect(out).toBe(
      `---------- TextMessage (billing) ----------\n${ANSWER}\n` +
        '(billing awaits your reply)\n' +
        '(tech asks: Which router? Model?)\n',
    );
  });

  it('writes a handoff as its HandoffMessage alone, with the usage of the call that made it', async () => {
    const out = await rendered([
      toolCallRequestEvent({
        source: 'triage',
        content: [handoffCall],
        usage: { promptTokens: 90, completionTokens: 6 },
      }),
      toolCallExecutionEvent({ source: 'triage', content: [handoffResult] }),
      handoffMessage({ source: 'triage', target: 'billing', content: transferred }),
    ]);
    expect(out).toBe(
      `---------- HandoffMessage (triage) ----------\n${transferred}\n` +
        '[Prompt tokens: 90, Completion tokens: 6]\n',
    );
  });

  it('still writes the other tool calls of a request that also hands off', async () => {
    const lookup = { id: 'c1', name: 'lookup', arguments: '{"id":1}' };
    const out = await rendered([
      toolCallRequestEvent({ source: 'triage', content: [lookup, handoffCall] }),
      toolCallExecutionEvent({
        source: 'triage',
        content: [
          { callId: 'c1', name: 'lookup', content: 'found', isError: false },
          handoffResult,
        ],
      }),
      handoffMessage({ source: 'triage', target: 'billing', content: transferred }),
    ]);
    expect(out).toBe(
      '---------- ToolCallRequestEvent (triage) ----------\nlookup({"id":1})\n' +
        '---------- ToolCallExecutionEvent (triage) ----------\nlookup: found\n' +
        `---------- HandoffMessage (triage) ----------\n${transferred}\n`,
    );
  });

  it('writes tool calls that are not a handoff as they are', async () => {
    const lookup = { id: 'c1', name: 'lookup', arguments: '{}' };
    const out = await rendered([
      toolCallRequestEvent({ source: 'billing', content: [lookup] }),
      toolCallExecutionEvent({
        source: 'billing',
        content: [{ callId: 'c1', name: 'lookup', content: 'none', isError: true }],
      }),
      textMessage({ source: 'billing', content: 'Nothing found.' }),
    ]);
    expect(out).toBe(
      '---------- ToolCallRequestEvent (billing) ----------\nlookup({})\n' +
        '---------- ToolCallExecutionEvent (billing) ----------\nlookup (error): none\n' +
        '---------- TextMessage (billing) ----------\nNothing found.\n',
    );
  });
});
