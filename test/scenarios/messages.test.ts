import { describe, expect, it } from 'vitest';

import {
  type AgentMessage,
  AgentMessageSchema,
  type FunctionCall,
  type FunctionExecutionResult,
  handoffMessage,
  isAgentEvent,
  isChatMessage,
  messageToText,
  selectSpeakerEvent,
  stopMessage,
  streamingChunkEvent,
  structuredMessage,
  textMessage,
  thoughtEvent,
  toolCallExecutionEvent,
  toolCallRequestEvent,
  toolCallSummaryMessage,
  userInputRequestedEvent,
} from '../../src/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

const lookupCall: FunctionCall = {
  id: 'call_1',
  name: 'lookup_invoice',
  arguments: '{"invoiceId":"INV-42"}',
};
const lookupResult: FunctionExecutionResult = {
  callId: 'call_1',
  name: 'lookup_invoice',
  content: 'Invoice INV-42 is paid',
  isError: false,
};
const approveCall: FunctionCall = { id: 'call_2', name: 'approve', arguments: '{"level":3}' };
const approveResult: FunctionExecutionResult = {
  callId: 'call_2',
  name: 'approve',
  content: 'approved by manager',
  isError: true,
};

const given = {
  id: 'msg-fixed-1',
  createdAt: '2024-05-06T07:08:09.010Z',
  metadata: { trace: { hop: 2 }, tags: ['a', 'b'] },
};
const usage = { promptTokens: 12, completionTokens: 34 };

interface FactoryCase {
  type: string;
  chat: boolean;
  /** The type-specific fields the factory was given, as they must appear on the message. */
  fields: Record<string, unknown>;
  make: () => AgentMessage;
  makeWith: () => AgentMessage;
}

const contextMessage = textMessage({
  source: 'user',
  content: 'My invoice is wrong',
  id: 'ctx-1',
  createdAt: '2024-01-01T00:00:00.000Z',
  metadata: { channel: 'web' },
});

const factoryCases: FactoryCase[] = [
  {
    type: 'TextMessage',
    chat: true,
    fields: { source: 'writer', content: 'hello' },
    make: () => textMessage({ source: 'writer', content: 'hello' }),
    makeWith: () => textMessage({ source: 'writer', content: 'hello', ...given }),
  },
  {
    type: 'StopMessage',
    chat: true,
    fields: { source: 'critic', content: 'done' },
    make: () => stopMessage({ source: 'critic', content: 'done' }),
    makeWith: () => stopMessage({ source: 'critic', content: 'done', ...given }),
  },
  {
    type: 'HandoffMessage',
    chat: true,
    fields: {
      source: 'triage',
      target: 'billing',
      content: 'Transferred to billing',
      context: [contextMessage],
    },
    make: () =>
      handoffMessage({
        source: 'triage',
        target: 'billing',
        content: 'Transferred to billing',
        context: [contextMessage],
      }),
    makeWith: () =>
      handoffMessage({
        source: 'triage',
        target: 'billing',
        content: 'Transferred to billing',
        context: [contextMessage],
        ...given,
      }),
  },
  {
    type: 'ToolCallSummaryMessage',
    chat: true,
    fields: {
      source: 'critic',
      content: 'Invoice INV-42 is paid',
      toolCalls: [lookupCall],
      results: [lookupResult],
    },
    make: () =>
      toolCallSummaryMessage({
        source: 'critic',
        content: 'Invoice INV-42 is paid',
        toolCalls: [lookupCall],
        results: [lookupResult],
      }),
    makeWith: () =>
      toolCallSummaryMessage({
        source: 'critic',
        content: 'Invoice INV-42 is paid',
        toolCalls: [lookupCall],
        results: [lookupResult],
        ...given,
      }),
  },
  {
    type: 'StructuredMessage',
    chat: true,
    fields: { source: 'writer', content: { answer: 42, city: 'Paris' } },
    make: () => structuredMessage({ source: 'writer', content: { answer: 42, city: 'Paris' } }),
    makeWith: () =>
      structuredMessage({ source: 'writer', content: { answer: 42, city: 'Paris' }, ...given }),
  },
  {
    type: 'ToolCallRequestEvent',
    chat: false,
    fields: { source: 'critic', content: [lookupCall, approveCall] },
    make: () => toolCallRequestEvent({ source: 'critic', content: [lookupCall, approveCall] }),
    makeWith: () =>
      toolCallRequestEvent({ source: 'critic', content: [lookupCall, approveCall], ...given }),
  },
  {
    type: 'ToolCallExecutionEvent',
    chat: false,
    fields: { source: 'critic', content: [lookupResult, approveResult] },
    make: () =>
      toolCallExecutionEvent({ source: 'critic', content: [lookupResult, approveResult] }),
    makeWith: () =>
      toolCallExecutionEvent({
        source: 'critic',
        content: [lookupResult, approveResult],
        ...given,
      }),
  },
  {
    type: 'UserInputRequestedEvent',
    chat: false,
    fields: { source: 'billing', requestId: 'req-7', content: 'Which invoice?' },
    make: () =>
      userInputRequestedEvent({ source: 'billing', requestId: 'req-7', content: 'Which invoice?' }),
    makeWith: () =>
      userInputRequestedEvent({
        source: 'billing',
        requestId: 'req-7',
        content: 'Which invoice?',
        ...given,
      }),
  },
  {
    type: 'ThoughtEvent',
    chat: false,
    fields: { source: 'writer', content: 'I should check the invoice first' },
    make: () => thoughtEvent({ source: 'writer', content: 'I should check the invoice first' }),
    makeWith: () =>
      thoughtEvent({ source: 'writer', content: 'I should check the invoice first', ...given }),
  },
  {
    type: 'ModelClientStreamingChunkEvent',
    chat: false,
    fields: { source: 'writer', content: 'Invoi' },
    make: () => streamingChunkEvent({ source: 'writer', content: 'Invoi' }),
    makeWith: () => streamingChunkEvent({ source: 'writer', content: 'Invoi', ...given }),
  },
  {
    type: 'SelectSpeakerEvent',
    chat: false,
    fields: { source: 'selector', content: ['writer', 'critic'] },
    make: () => selectSpeakerEvent({ source: 'selector', content: ['writer', 'critic'] }),
    makeWith: () =>
      selectSpeakerEvent({ source: 'selector', content: ['writer', 'critic'], ...given }),
  },
];

describe('message factories', () => {
  it('cover all eleven message types', () => {
    expect(factoryCases.map((c) => c.make().type)).toEqual([
      'TextMessage',
      'StopMessage',
      'HandoffMessage',
      'ToolCallSummaryMessage',
      'StructuredMessage',
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
      'UserInputRequestedEvent',
      'ThoughtEvent',
      'ModelClientStreamingChunkEvent',
      'SelectSpeakerEvent',
    ]);
  });

  describe.each(factoryCases)('$type', (c) => {
    it('fills a UUID id, an ISO createdAt and empty metadata, and omits usage', () => {
      const before = Date.now();
      const m = c.make();
      const after = Date.now();
      expect(m).toEqual({
        type: c.type,
        id: expect.any(String),
        createdAt: expect.any(String),
        metadata: {},
        ...c.fields,
      });
      expect(m.id).toMatch(UUID);
      expect(new Date(m.createdAt).toISOString()).toBe(m.createdAt);
      const at = Date.parse(m.createdAt);
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(after);
      expect('usage' in m).toBe(false);
    });

    it('gives every message its own id', () => {
      expect(c.make().id).not.toBe(c.make().id);
    });

    it('keeps a given id, createdAt and metadata unchanged', () => {
      expect(c.makeWith()).toEqual({ type: c.type, ...c.fields, ...given });
    });

    it('produces a plain JSON-serialisable object', () => {
      const m = c.makeWith();
      expect(JSON.parse(JSON.stringify(m))).toEqual(m);
    });
  });

  it('keeps given usage on chat messages and tool call requests', () => {
    const made: AgentMessage[] = [
      textMessage({ source: 'a', content: 'x', usage }),
      stopMessage({ source: 'a', content: 'x', usage }),
      handoffMessage({ source: 'a', target: 'b', content: 'x', usage }),
      toolCallSummaryMessage({
        source: 'a',
        content: 'x',
        toolCalls: [lookupCall],
        results: [lookupResult],
        usage,
      }),
      structuredMessage({ source: 'a', content: { ok: true }, usage }),
      toolCallRequestEvent({ source: 'a', content: [lookupCall], usage }),
    ];
    expect(made.map((m) => m.usage)).toEqual([usage, usage, usage, usage, usage, usage]);
  });

  it('writes the whole TextMessage, with usage, exactly', () => {
    expect(textMessage({ source: 'writer', content: 'hi', usage, ...given })).toEqual({
      type: 'TextMessage',
      id: 'msg-fixed-1',
      source: 'writer',
      createdAt: '2024-05-06T07:08:09.010Z',
      usage: { promptTokens: 12, completionTokens: 34 },
      metadata: { trace: { hop: 2 }, tags: ['a', 'b'] },
      content: 'hi',
    });
  });

  it('leaves a UserInputRequestedEvent without content with a string content', () => {
    const m = userInputRequestedEvent({ source: 'billing', requestId: 'req-1' });
    expect(m.type).toBe('UserInputRequestedEvent');
    expect(m.requestId).toBe('req-1');
    expect(typeof m.content).toBe('string');
  });
});

describe('isChatMessage() and isAgentEvent()', () => {
  it.each(factoryCases)('classify a $type', (c) => {
    const m = c.make();
    expect({ chat: isChatMessage(m), event: isAgentEvent(m) }).toEqual({
      chat: c.chat,
      event: !c.chat,
    });
  });

  it('split the eleven types five chat messages to six events', () => {
    const all = factoryCases.map((c) => c.make());
    expect(all.filter(isChatMessage).map((m) => m.type)).toEqual([
      'TextMessage',
      'StopMessage',
      'HandoffMessage',
      'ToolCallSummaryMessage',
      'StructuredMessage',
    ]);
    expect(all.filter(isAgentEvent).map((m) => m.type)).toEqual([
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
      'UserInputRequestedEvent',
      'ThoughtEvent',
      'ModelClientStreamingChunkEvent',
      'SelectSpeakerEvent',
    ]);
  });
});

describe('messageToText()', () => {
  it('returns the content of a TextMessage', () => {
    expect(messageToText(textMessage({ source: 'writer', content: 'Paris in the rain' }))).toBe(
      'Paris in the rain',
    );
  });

  it('returns the content of a StopMessage', () => {
    expect(messageToText(stopMessage({ source: 'critic', content: 'All done' }))).toBe('All done');
  });

  it('returns the content of a ThoughtEvent', () => {
    expect(messageToText(thoughtEvent({ source: 'writer', content: 'hmm, rain' }))).toBe(
      'hmm, rain',
    );
  });

  it('returns the content of a streaming chunk', () => {
    expect(messageToText(streamingChunkEvent({ source: 'writer', content: 'Par' }))).toBe('Par');
  });

  it('includes the content of a HandoffMessage', () => {
    const m = handoffMessage({ source: 'triage', target: 'billing', content: 'Over to billing' });
    expect(messageToText(m)).toContain('Over to billing');
  });

  it('includes the content of a ToolCallSummaryMessage', () => {
    const m = toolCallSummaryMessage({
      source: 'critic',
      content: 'Invoice INV-42 is paid',
      toolCalls: [lookupCall],
      results: [lookupResult],
    });
    expect(messageToText(m)).toContain('Invoice INV-42 is paid');
  });

  it('includes the fields and values of a StructuredMessage', () => {
    const m = structuredMessage({ source: 'writer', content: { answer: 42, city: 'Paris' } });
    const t = messageToText(m);
    expect(t).toContain('answer');
    expect(t).toContain('42');
    expect(t).toContain('city');
    expect(t).toContain('Paris');
  });

  it('includes every call name and its arguments for a ToolCallRequestEvent', () => {
    const t = messageToText(
      toolCallRequestEvent({ source: 'critic', content: [lookupCall, approveCall] }),
    );
    expect(t).toContain('lookup_invoice');
    expect(t).toContain('{"invoiceId":"INV-42"}');
    expect(t).toContain('approve');
    expect(t).toContain('{"level":3}');
  });

  it('includes every result content for a ToolCallExecutionEvent', () => {
    const t = messageToText(
      toolCallExecutionEvent({ source: 'critic', content: [lookupResult, approveResult] }),
    );
    expect(t).toContain('Invoice INV-42 is paid');
    expect(t).toContain('approved by manager');
  });

  it('includes the prompt of a UserInputRequestedEvent', () => {
    const m = userInputRequestedEvent({
      source: 'billing',
      requestId: 'req-7',
      content: 'Which invoice?',
    });
    expect(messageToText(m)).toContain('Which invoice?');
  });

  it('includes every candidate of a SelectSpeakerEvent', () => {
    const t = messageToText(
      selectSpeakerEvent({ source: 'selector', content: ['writer', 'critic'] }),
    );
    expect(t).toContain('writer');
    expect(t).toContain('critic');
  });

  it.each(factoryCases)('returns a string for a $type', (c) => {
    expect(typeof messageToText(c.make())).toBe('string');
  });
});

/** The issue paths zod reports for `input`, or null when it is accepted. */
function issuePaths(input: unknown): PropertyKey[][] | null {
  const parsed = AgentMessageSchema.safeParse(input);
  if (parsed.success) return null;
  return parsed.error.issues.map((issue) => [...issue.path]);
}

describe('AgentMessageSchema', () => {
  it.each(factoryCases)('accepts a $type from its factory and returns it unchanged', (c) => {
    for (const m of [c.make(), c.makeWith()]) {
      const parsed = AgentMessageSchema.safeParse(m);
      expect(parsed.success).toBe(true);
      expect(parsed.data).toEqual(m);
    }
  });

  it('accepts messages with usage and returns them unchanged', () => {
    const m = toolCallRequestEvent({ source: 'critic', content: [lookupCall], usage });
    expect(AgentMessageSchema.parse(m)).toEqual(m);
    const t = textMessage({ source: 'writer', content: 'x', usage, ...given });
    expect(AgentMessageSchema.parse(t)).toEqual(t);
  });

  it('accepts a message that went through JSON', () => {
    const m = handoffMessage({
      source: 'triage',
      target: 'billing',
      content: 'x',
      context: [contextMessage],
      ...given,
    });
    const copy: unknown = JSON.parse(JSON.stringify(m));
    expect(AgentMessageSchema.parse(copy)).toEqual(m);
  });

  const valid = textMessage({ source: 'writer', content: 'hello', ...given });

  it.each<[string, unknown, PropertyKey[]]>([
    ['a non-string TextMessage content', { ...valid, content: 42 }, ['content']],
    ['a missing source', { ...valid, source: undefined }, ['source']],
    ['a non-string source', { ...valid, source: 7 }, ['source']],
    ['a non-string id', { ...valid, id: 12 }, ['id']],
    ['a non-object metadata', { ...valid, metadata: 'x' }, ['metadata']],
    [
      'a non-number completionTokens',
      { ...valid, usage: { promptTokens: 1, completionTokens: '2' } },
      ['usage', 'completionTokens'],
    ],
    [
      'a missing promptTokens',
      { ...valid, usage: { completionTokens: 2 } },
      ['usage', 'promptTokens'],
    ],
    [
      'a bad message inside a handoff context',
      {
        ...handoffMessage({ source: 'triage', target: 'billing', content: 'x' }),
        context: [{ ...contextMessage, content: 7 }],
      },
      ['context', 0, 'content'],
    ],
    [
      'a non-string handoff target',
      { ...handoffMessage({ source: 'triage', target: 'billing', content: 'x' }), target: 3 },
      ['target'],
    ],
    [
      'non-string call arguments',
      {
        ...toolCallRequestEvent({ source: 'critic', content: [lookupCall] }),
        content: [lookupCall, { ...approveCall, arguments: { level: 3 } }],
      },
      ['content', 1, 'arguments'],
    ],
    [
      'a non-boolean isError',
      {
        ...toolCallExecutionEvent({ source: 'critic', content: [lookupResult] }),
        content: [{ ...lookupResult, isError: 'no' }],
      },
      ['content', 0, 'isError'],
    ],
    [
      'a result without callId in a summary',
      {
        ...toolCallSummaryMessage({
          source: 'critic',
          content: 'x',
          toolCalls: [lookupCall],
          results: [lookupResult],
        }),
        results: [{ name: 'lookup_invoice', content: 'x', isError: false }],
      },
      ['results', 0, 'callId'],
    ],
    [
      'a non-string speaker',
      { ...selectSpeakerEvent({ source: 'selector', content: ['a'] }), content: ['a', 3] },
      ['content', 1],
    ],
    [
      'a non-string requestId',
      {
        ...userInputRequestedEvent({ source: 'billing', requestId: 'r', content: 'q' }),
        requestId: 5,
      },
      ['requestId'],
    ],
    ['an unknown type', { ...valid, type: 'ShoutMessage' }, ['type']],
  ])('rejects %s with the path of the bad field', (_, input, path) => {
    expect(issuePaths(input)).toEqual([path]);
  });

  it('rejects input that is not an object', () => {
    expect(issuePaths(null)).not.toBeNull();
    expect(issuePaths('TextMessage')).not.toBeNull();
    expect(issuePaths([valid])).not.toBeNull();
  });
});
