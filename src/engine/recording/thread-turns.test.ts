import { describe, expect, it } from 'vitest';

import {
  approve,
  guardrailTrippedEvent,
  reject,
  structuredMessage,
  textMessage,
  thoughtEvent,
  toolApprovalRequestEvent,
  toolCallExecutionEvent,
  toolCallRequestEvent,
  toolCallSummaryMessage,
  toolInDoubtEvent,
  userInputRequestedEvent,
} from '../../messages/message-factories.js';
import { redactValue, threadPath } from './thread-turns.js';

const call = { id: 'c1', name: 'lookup', arguments: '{"q":"x"}' };
const result = { callId: 'c1', name: 'lookup', content: 'found x', isError: false };
const usage = { promptTokens: 3, completionTokens: 1 };

describe('threadPath()', () => {
  it('rebuilds each model answer: thoughts, calls with usage, and the final text', () => {
    const path = threadPath(
      [
        textMessage({ source: 'user', content: 'hi' }),
        thoughtEvent({ source: 'a', content: 'reasoning' }),
        thoughtEvent({ source: 'a', content: 'let me look' }),
        toolCallRequestEvent({ source: 'a', content: [call], usage }),
        toolCallExecutionEvent({ source: 'a', content: [result] }),
        textMessage({ source: 'a', content: 'x it is', usage }),
        userInputRequestedEvent({ source: 'a', requestId: 'r', content: 'x it is' }),
        textMessage({ source: 'user', content: 'and y?' }),
        structuredMessage({ source: 'b', content: { answer: 'y' } }),
      ],
      new Set(['a', 'b']),
      undefined,
    );
    expect(path.inputs.map((i) => [i.after, i.messages?.length])).toEqual([
      [0, 1],
      [1, 1],
    ]);
    expect(path.turns).toEqual([
      {
        agent: 'a',
        answers: [
          { content: 'let me look', thought: 'reasoning', toolCalls: [call], usage },
          { content: 'x it is', toolCalls: [], usage },
        ],
        results: [result],
        message: 'TextMessage',
      },
      {
        agent: 'b',
        answers: [
          {
            content: '{"answer":"y"}',
            toolCalls: [],
            usage: { promptTokens: 0, completionTokens: 0 },
          },
        ],
        results: [],
        message: 'StructuredMessage',
      },
    ]);
  });

  it('keeps a turn paused for approval open across the decision, and skips the engine markers', () => {
    const path = threadPath(
      [
        textMessage({ source: 'user', content: 'refund' }),
        toolCallRequestEvent({ source: 'a', content: [call] }),
        toolApprovalRequestEvent({ source: 'a', content: [call] }),
        reject('c1', 'no'),
        toolCallExecutionEvent({ source: 'a', content: [{ ...result, isError: true }] }),
        toolCallSummaryMessage({ source: 'a', content: 'x', toolCalls: [call], results: [] }),
        guardrailTrippedEvent({ source: 'no_cards', content: 'card' }),
      ],
      new Set(['a']),
      undefined,
    );
    expect(path.inputs.map((i) => [i.after, i.messages?.map((m) => m.type)])).toEqual([
      [0, ['TextMessage']],
      [1, ['ToolApprovalResponseEvent']],
    ]);
    expect(path.turns).toHaveLength(1);
    expect(path.turns[0]).toMatchObject({
      agent: 'a',
      approvals: [call],
      message: 'ToolCallSummaryMessage',
    });
    expect(path.turns[0]?.answers).toHaveLength(1);
  });

  it('keeps the calls found in doubt with their turn, and the run without a task that found them', () => {
    const events = (inDoubtAfterInput: boolean) => [
      textMessage({ source: 'user', content: 'refund' }),
      toolCallRequestEvent({ source: 'a', content: [call] }),
      ...(inDoubtAfterInput ? [textMessage({ source: 'user', content: 'well?' })] : []),
      toolInDoubtEvent({ source: 'a', content: [call] }),
      approve('c1'),
      toolCallExecutionEvent({ source: 'a', content: [result] }),
      textMessage({ source: 'a', content: 'done', usage }),
    ];
    const path = threadPath(events(false), new Set(['a']), undefined);
    expect(path.inputs.map((i) => [i.after, i.messages?.map((m) => m.type) ?? null])).toEqual([
      [0, ['TextMessage']],
      [1, null],
      [1, ['ToolApprovalResponseEvent']],
    ]);
    expect(path.turns).toEqual([
      {
        agent: 'a',
        answers: [
          { content: null, toolCalls: [call], usage: { promptTokens: 0, completionTokens: 0 } },
          { content: 'done', toolCalls: [], usage },
        ],
        results: [result],
        inDoubt: [call],
        message: 'TextMessage',
      },
    ]);
    // Found in doubt by the run of a task: that run is the input's; no run without a task.
    const after = threadPath(events(true), new Set(['a']), undefined);
    expect(after.inputs.map((i) => [i.after, i.messages?.map((m) => m.type) ?? null])).toEqual([
      [0, ['TextMessage']],
      [1, ['TextMessage']],
      [1, ['ToolApprovalResponseEvent']],
    ]);
  });
});

describe('redactValue()', () => {
  it('rewrites every string but names, ids and times, in a copy', () => {
    const message = textMessage({
      source: 'user',
      content: 'mail ann@x.io',
      metadata: { note: 'ann@x.io' },
    });
    const redacted = redactValue(message, (t) => t.replaceAll('ann@x.io', '[email]'));
    expect(redacted).toEqual({
      ...message,
      content: 'mail [email]',
      metadata: { note: '[email]' },
    });
    expect(message.content).toBe('mail ann@x.io');
  });
});
