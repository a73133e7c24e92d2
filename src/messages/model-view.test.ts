import { describe, expect, it } from 'vitest';

import { ConfigError } from '../errors.js';
import type { AgentMessage, FunctionCall } from './message.js';
import {
  handoffMessage,
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
} from './message-factories.js';
import { toModelMessages } from './model-view.js';

const call = (id: string, name: string, args = '{}'): FunctionCall => ({
  id,
  name,
  arguments: args,
});
const result = (callId: string, name: string, content: string) => ({
  callId,
  name,
  content,
  isError: false,
});
const text = (source: string, content: string) => textMessage({ source, content });
// The notes that keep a request within every provider's rules (provider-turns.ts).
const START = { role: 'user', content: '[start of the conversation]' };
const yourTurn = (agent: string) => ({ role: 'user', content: `[${agent}, it is your turn]` });

/** triage looks up an invoice and hands off to billing in the same answer. */
function handoffThread(): AgentMessage[] {
  return [
    text('user', 'Refund invoice 42'),
    toolCallRequestEvent({
      source: 'triage',
      content: [call('c1', 'lookup', '{"id":42}'), call('c2', 'handoff_to_billing')],
    }),
    toolCallExecutionEvent({
      source: 'triage',
      content: [result('c1', 'lookup', 'unpaid'), result('c2', 'handoff_to_billing', 'Moved')],
    }),
    handoffMessage({
      source: 'triage',
      target: 'billing',
      content: 'Transferred to billing.',
      context: [
        toolCallSummaryMessage({
          source: 'triage',
          content: 'unpaid',
          toolCalls: [call('c1', 'lookup', '{"id":42}')],
          results: [result('c1', 'lookup', 'unpaid')],
        }),
      ],
    }),
  ];
}

describe('toModelMessages()', () => {
  it('maps roles: instructions, the user, itself, and other agents as user turns naming them', () => {
    const thread: AgentMessage[] = [
      text('user', 'Hi'),
      text('critic', 'Too long'),
      text('writer', 'Shorter now'),
      structuredMessage({ source: 'critic', content: { score: 7 } }),
      toolCallSummaryMessage({ source: 'critic', content: 'done', toolCalls: [], results: [] }),
    ];
    expect(toModelMessages(thread, 'writer', { instructions: 'Write well.' })).toEqual([
      { role: 'system', content: 'Write well.' },
      { role: 'user', content: 'Hi' },
      { role: 'user', content: '[critic]: Too long' },
      { role: 'assistant', content: 'Shorter now' },
      { role: 'user', content: '[critic]: {"score":7}' },
      { role: 'user', content: '[critic]: done' },
    ]);
  });

  it('leaves out stop messages, requests for input, thoughts, speaker picks and chunks', () => {
    const thread: AgentMessage[] = [
      text('user', 'Hi'),
      thoughtEvent({ source: 'writer', content: 'hmm' }),
      streamingChunkEvent({ source: 'writer', content: 'Hel' }),
      selectSpeakerEvent({ source: 'selector', content: ['writer'] }),
      text('writer', 'Hello'),
      userInputRequestedEvent({ source: 'writer', requestId: 'r1', content: 'Hello' }),
      stopMessage({ source: 'MaxMessageTermination', content: 'stop' }),
    ];
    expect(toModelMessages(thread, 'writer')).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello' },
      yourTurn('writer'),
    ]);
  });

  it('pairs its tool calls with their results and shows another agent’s calls as its text', () => {
    const thread: AgentMessage[] = [
      text('user', 'Weather?'),
      toolCallRequestEvent({ source: 'other', content: [call('x1', 'spy')] }),
      toolCallExecutionEvent({ source: 'other', content: [result('x1', 'spy', 'secret')] }),
      toolCallRequestEvent({ source: 'me', content: [call('a', 'weather'), call('b', 'time')] }),
      toolCallExecutionEvent({
        source: 'me',
        content: [result('b', 'time', '12:00'), result('a', 'weather', 'sunny')],
      }),
      text('me', 'Sunny at noon'),
    ];
    expect(toModelMessages(thread, 'me')).toEqual([
      { role: 'user', content: 'Weather?' },
      { role: 'user', content: '[other] called spy({}) -> secret' },
      { role: 'assistant', content: null, toolCalls: [call('a', 'weather'), call('b', 'time')] },
      { role: 'tool', toolCallId: 'a', content: 'sunny' },
      { role: 'tool', toolCallId: 'b', content: '12:00' },
      { role: 'assistant', content: 'Sunny at noon' },
      yourTurn('me'),
    ]);
  });

  it('removes a call without its result and a result without its call, whatever the filter', () => {
    const thread: AgentMessage[] = [
      toolCallRequestEvent({ source: 'me', content: [call('a', 'weather'), call('b', 'time')] }),
      toolCallExecutionEvent({
        source: 'me',
        content: [result('a', 'weather', 'sunny'), result('zz', 'time', 'orphan')],
      }),
      toolCallRequestEvent({ source: 'me', content: [call('c', 'time')] }),
    ];
    for (const toolCallFilter of ['handoff', 'none'] as const) {
      expect(toModelMessages(thread, 'me', { toolCallFilter })).toEqual([
        START,
        { role: 'assistant', content: null, toolCalls: [call('a', 'weather')] },
        { role: 'tool', toolCallId: 'a', content: 'sunny' },
      ]);
    }
  });

  it('shows a call id only once when a thread repeats it', () => {
    const thread: AgentMessage[] = [
      toolCallRequestEvent({ source: 'me', content: [call('a', 'weather')] }),
      toolCallExecutionEvent({ source: 'me', content: [result('a', 'weather', 'sunny')] }),
      toolCallRequestEvent({ source: 'me', content: [call('a', 'weather')] }),
      toolCallExecutionEvent({ source: 'me', content: [result('a', 'weather', 'rain')] }),
    ];
    expect(toModelMessages(thread, 'me')).toEqual([
      START,
      { role: 'assistant', content: null, toolCalls: [call('a', 'weather')] },
      { role: 'tool', toolCallId: 'a', content: 'sunny' },
    ]);
  });

  it('removes only the handoff calls by default and keeps the handoff as text', () => {
    expect(toModelMessages(handoffThread(), 'triage')).toEqual([
      { role: 'user', content: 'Refund invoice 42' },
      { role: 'assistant', content: null, toolCalls: [call('c1', 'lookup', '{"id":42}')] },
      { role: 'tool', toolCallId: 'c1', content: 'unpaid' },
      { role: 'assistant', content: 'Transferred to billing.' },
      yourTurn('triage'),
    ]);
  });

  it('keeps every call with the "none" filter and removes every call with "all"', () => {
    expect(toModelMessages(handoffThread(), 'triage', { toolCallFilter: 'none' })).toEqual([
      { role: 'user', content: 'Refund invoice 42' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [call('c1', 'lookup', '{"id":42}'), call('c2', 'handoff_to_billing')],
      },
      { role: 'tool', toolCallId: 'c1', content: 'unpaid' },
      { role: 'tool', toolCallId: 'c2', content: 'Moved' },
      { role: 'assistant', content: 'Transferred to billing.' },
      yourTurn('triage'),
    ]);
    expect(toModelMessages(handoffThread(), 'triage', { toolCallFilter: 'all' })).toEqual([
      { role: 'user', content: 'Refund invoice 42' },
      { role: 'assistant', content: 'Transferred to billing.' },
      yourTurn('triage'),
    ]);
  });

  it('recognises handoff tools by the names it is given', () => {
    const thread: AgentMessage[] = [
      toolCallRequestEvent({
        source: 'me',
        content: [call('a', 'transfer_to_bob'), call('b', 'handoff_to_notes')],
      }),
      toolCallExecutionEvent({
        source: 'me',
        content: [result('a', 'transfer_to_bob', 'ok'), result('b', 'handoff_to_notes', 'saved')],
      }),
    ];
    const handoffToolNames = new Set(['transfer_to_bob']);
    expect(toModelMessages(thread, 'me', { handoffToolNames })).toEqual([
      START,
      { role: 'assistant', content: null, toolCalls: [call('b', 'handoff_to_notes')] },
      { role: 'tool', toolCallId: 'b', content: 'saved' },
    ]);
  });

  it('shows the other calls of a handoff answer once, to every agent, without the handoff call', () => {
    expect(toModelMessages(handoffThread(), 'billing', { instructions: 'Billing.' })).toEqual([
      { role: 'system', content: 'Billing.' },
      { role: 'user', content: 'Refund invoice 42' },
      { role: 'user', content: '[triage] called lookup({"id":42}) -> unpaid' },
      { role: 'user', content: '[handoff from triage to billing]: Transferred to billing.' },
    ]);
    expect(toModelMessages(handoffThread(), 'tech')).toEqual([
      { role: 'user', content: 'Refund invoice 42' },
      { role: 'user', content: '[triage] called lookup({"id":42}) -> unpaid' },
      { role: 'user', content: '[handoff from triage to billing]: Transferred to billing.' },
    ]);
  });

  it('applies the filter to the handoff context and shows its chat messages as text', () => {
    const thread: AgentMessage[] = [
      handoffMessage({
        source: 'triage',
        target: 'billing',
        content: 'Over to you',
        context: [
          text('triage', 'Customer is angry'),
          stopMessage({ source: 'x', content: 'never shown' }),
          toolCallSummaryMessage({
            source: 'triage',
            content: 'unpaid',
            toolCalls: [call('c1', 'lookup'), call('c9', 'lookup')],
            results: [result('c1', 'lookup', 'unpaid')],
          }),
        ],
      }),
    ];
    expect(toModelMessages(thread, 'billing', { toolCallFilter: 'all' })).toEqual([
      { role: 'user', content: '[triage]: Customer is angry' },
      { role: 'user', content: '[handoff from triage to billing]: Over to you' },
    ]);
    expect(toModelMessages(thread, 'billing')).toEqual([
      { role: 'user', content: '[triage]: Customer is angry' },
      { role: 'user', content: '[triage] called lookup({}) -> unpaid' },
      { role: 'user', content: '[handoff from triage to billing]: Over to you' },
    ]);
  });

  it('shows a user handoff as a user message and names any speaker in the text', () => {
    const thread: AgentMessage[] = [
      handoffMessage({ source: 'user', target: 'alice', content: 'Back to you' }),
      text('Team Lead', 'Welcome'),
    ];
    expect(toModelMessages(thread, 'alice')).toEqual([
      { role: 'user', content: 'Back to you' },
      { role: 'user', content: '[Team Lead]: Welcome' },
    ]);
  });

  it('keeps the last n messages and widens the window so no result loses its call', () => {
    const thread: AgentMessage[] = [
      text('user', 'one'),
      toolCallRequestEvent({ source: 'me', content: [call('a', 'f'), call('b', 'g')] }),
      toolCallExecutionEvent({
        source: 'me',
        content: [result('a', 'f', 'A'), result('b', 'g', 'B')],
      }),
      text('me', 'two'),
    ];
    const view = (contextWindow: number) =>
      toModelMessages(thread, 'me', { instructions: 'sys', contextWindow });
    const EARLIER = { role: 'user', content: '[earlier messages are not shown]' };
    expect(view(1)).toEqual([
      { role: 'system', content: 'sys' },
      EARLIER,
      { role: 'assistant', content: 'two' },
      yourTurn('me'),
    ]);
    expect(view(2)).toEqual([
      { role: 'system', content: 'sys' },
      EARLIER,
      { role: 'assistant', content: null, toolCalls: [call('a', 'f'), call('b', 'g')] },
      { role: 'tool', toolCallId: 'a', content: 'A' },
      { role: 'tool', toolCallId: 'b', content: 'B' },
      { role: 'assistant', content: 'two' },
      yourTurn('me'),
    ]);
    expect(view(9)).toHaveLength(7);
  });

  it('rejects a bad context window or filter with a ConfigError that says what to pass', () => {
    expect(() => toModelMessages([], 'me', { contextWindow: 0 })).toThrow(ConfigError);
    expect(() => toModelMessages([], 'me', { contextWindow: 1.5 })).toThrow(
      'toModelMessages(): contextWindow must be a positive integer, got 1.5. Pass how many ' +
        'recent messages the model sees, or leave it out to show them all.',
    );
    const toolCallFilter = 'some' as 'all';
    expect(() => toModelMessages([], 'me', { toolCallFilter })).toThrow(
      'toModelMessages(): toolCallFilter "some" is unknown. Use "handoff", "all" or "none".',
    );
  });
});
