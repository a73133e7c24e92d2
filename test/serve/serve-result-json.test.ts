// The plain stream's `result` reuses the JSON of the messages it has sent: its text must be
// JSON.stringify(result), byte for byte, whatever the messages hold.
import { describe, expect, it } from 'vitest';

import type { TaskResult } from '../../src/engine/runnable.js';
import { stopMessage, textMessage } from '../../src/messages/message-factories.js';
import type { AgentMessage } from '../../src/messages/message.js';
import { resultJson } from '../../src/serve/plain-events.js';

const tricky = textMessage({ source: 'user', content: 'say "messages":[] and \u0000 \\" }' });
const answer = textMessage({ source: 'desk', content: 'Done. "messages":[]' });
const stop = stopMessage({ source: 'desk', content: 'stopped' });

function result(messages: AgentMessage[], extra: Partial<TaskResult> = {}): TaskResult {
  return {
    type: 'TaskResult',
    messages,
    stopReason: null,
    status: 'terminated',
    sessionId: 's "messages":[]',
    usage: { promptTokens: 1, completionTokens: 2 },
    ...extra,
  };
}

const sentOf = (messages: AgentMessage[]) =>
  new Map(messages.map((m) => [m, JSON.stringify(m)] as const));

describe('resultJson', () => {
  it.each([
    ['every message sent', result([tricky, answer, stop]), [tricky, answer, stop]],
    ['some sent, some not', result([tricky, answer, stop]), [answer]],
    ['none sent', result([tricky, answer]), []],
    ['no messages', result([]), [tricky]],
    [
      'a pending request after the messages',
      result([tricky, answer], {
        status: 'awaiting_input',
        pendingRequest: { id: 'r1', agent: 'desk', prompt: '"messages":[]', kind: 'input' },
      }),
      [tricky, answer],
    ],
  ] as [string, TaskResult, AgentMessage[]][])('%s: JSON.stringify byte for byte', (_, r, sent) => {
    expect(resultJson(r, sentOf(sent))).toBe(JSON.stringify(r));
  });

  it('encodes the whole result when an object comes before its messages', () => {
    // An object before `messages` may hold a "messages":[] of its own, found first.
    const wide = { extra: { messages: [] }, ...result([tricky, answer]) };
    const reordered: TaskResult = wide;
    const text = resultJson(reordered, sentOf([tricky, answer]));
    expect(text).toBe(JSON.stringify(reordered));
    expect(JSON.parse(text).messages).toHaveLength(2);
  });

  it('uses the text it was given for a sent message', () => {
    const r = result([answer]);
    const text = resultJson(r, new Map([[answer, '{"sent":"as is"}']]));
    expect(JSON.parse(text).messages).toEqual([{ sent: 'as is' }]);
  });
});
