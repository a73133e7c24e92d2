import { describe, expect, it } from 'vitest';

import type { FunctionCall, FunctionExecutionResult } from './message.js';
import {
  handoffMessage,
  stopMessage,
  textMessage,
  toolCallExecutionEvent,
  toolCallRequestEvent,
  toolCallSummaryMessage,
  userInputRequestedEvent,
} from './message-factories.js';

const fixed = { id: 'm1', createdAt: '2026-01-02T03:04:05.678Z' };
const usage = { promptTokens: 3, completionTokens: 4 };
const call: FunctionCall = { id: 'c1', name: 'lookup', arguments: '{}' };
const result: FunctionExecutionResult = {
  callId: 'c1',
  name: 'lookup',
  content: 'found',
  isError: false,
};

describe('message factories', () => {
  it('write the fields in one order, usage after metadata and only when given', () => {
    const made = [
      textMessage({ ...fixed, source: 'user', content: 'Hi' }),
      textMessage({ ...fixed, source: 'a', content: 'Hi', usage }),
      stopMessage({ ...fixed, source: 'MaxMessageTermination', content: 'stop' }),
      toolCallRequestEvent({ ...fixed, source: 'a', content: [call], usage }),
      toolCallExecutionEvent({ ...fixed, source: 'a', content: [result] }),
      handoffMessage({ ...fixed, source: 'a', target: 'b', content: 'go' }),
      handoffMessage({ ...fixed, source: 'a', target: 'b', content: 'go', context: [] }),
      handoffMessage({ ...fixed, source: 'a', target: 'b', content: 'go', context: [], usage }),
      toolCallSummaryMessage({ ...fixed, source: 'a', content: 'x', toolCalls: [], results: [] }),
      userInputRequestedEvent({ ...fixed, source: 'a', requestId: 'r1' }),
      userInputRequestedEvent({ ...fixed, source: 'a', requestId: 'r1', usage }),
    ];
    expect(made.map((m) => Object.keys(m).join(','))).toEqual([
      'type,id,source,createdAt,metadata,content',
      'type,id,source,createdAt,metadata,usage,content',
      'type,id,source,createdAt,metadata,content',
      'type,id,source,createdAt,metadata,usage,content',
      'type,id,source,createdAt,metadata,content',
      'type,id,source,createdAt,metadata,target,content',
      'type,id,source,createdAt,metadata,target,content,context',
      'type,id,source,createdAt,metadata,usage,target,content,context',
      'type,id,source,createdAt,metadata,content,toolCalls,results',
      'type,id,source,createdAt,metadata,requestId,content',
      'type,id,source,createdAt,metadata,usage,requestId,content',
    ]);
    expect(JSON.parse(JSON.stringify(made[7]))).toEqual({
      type: 'HandoffMessage',
      id: 'm1',
      source: 'a',
      createdAt: '2026-01-02T03:04:05.678Z',
      metadata: {},
      usage,
      target: 'b',
      content: 'go',
      context: [],
    });
  });

  it('keeps what it is given: id, createdAt, usage and metadata', () => {
    const metadata = { traceId: 't-1' };
    const m = textMessage({ ...fixed, source: 'user', content: 'Hi', usage, metadata });
    expect(m.id).toBe('m1');
    expect(m.createdAt).toBe('2026-01-02T03:04:05.678Z');
    expect(m.usage).toBe(usage);
    expect(m.metadata).toBe(metadata);
    expect(Object.isFrozen(m.metadata)).toBe(false);
  });

  it('stamps each message with the time it was made, in ISO-8601', () => {
    const seen: { before: number; after: number; createdAt: string }[] = [];
    for (let i = 0; i < 2000; i++) {
      const before = Date.now();
      const { createdAt } = textMessage({ source: 'user', content: String(i) });
      seen.push({ before, after: Date.now(), createdAt });
    }
    for (const { before, after, createdAt } of seen) {
      expect(createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(new Date(createdAt).toISOString()).toBe(createdAt);
      expect(Date.parse(createdAt)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(createdAt)).toBeLessThanOrEqual(after);
    }
  });

  it('gives a message made without metadata an empty, frozen metadata object', () => {
    const m = textMessage({ source: 'user', content: 'Hi' });
    expect(m.metadata).toEqual({});
    expect(Object.isFrozen(m.metadata)).toBe(true);
    expect(JSON.parse(JSON.stringify(m))).toEqual({ ...m, metadata: {} });
    expect(() => {
      (m.metadata as Record<string, unknown>).note = 'x';
    }).toThrow(TypeError);
    expect(textMessage({ source: 'user', content: 'Ho' }).metadata).toEqual({});
  });
});
