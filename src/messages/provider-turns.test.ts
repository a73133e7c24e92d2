import { describe, expect, it } from 'vitest';

import type { LLMMessage } from './llm-message.js';
import {
  handoffMessage,
  textMessage,
  toolCallExecutionEvent,
  toolCallRequestEvent,
} from './message-factories.js';
import { toModelMessages } from './model-view.js';
import { asProviderTurns, speakerOf } from './provider-turns.js';

describe('speakerOf()', () => {
  it('names who wrote each message of a view: the user, another agent, or nobody for its own and the notes', () => {
    const thread = [
      textMessage({ source: 'user', content: '[not an agent] I typed brackets' }),
      textMessage({ source: 'Team Lead', content: 'Welcome' }),
      toolCallRequestEvent({
        source: 'triage',
        content: [{ id: 'c1', name: 'lookup', arguments: '{}' }],
      }),
      toolCallExecutionEvent({
        source: 'triage',
        content: [{ callId: 'c1', name: 'lookup', content: 'paid', isError: true }],
      }),
      handoffMessage({ source: 'triage', target: 'billing', content: 'Over to you' }),
      textMessage({ source: 'billing', content: 'Hello' }),
    ];
    const view = toModelMessages(thread, 'billing');
    expect(view.map((m) => [m.content, speakerOf(m)])).toEqual([
      ['[not an agent] I typed brackets', 'user'],
      ['[Team Lead]: Welcome', 'Team Lead'],
      ['[triage] called lookup({}) -> error: paid', 'triage'],
      ['[handoff from triage to billing]: Over to you', 'triage'],
      ['Hello', undefined],
      ['[billing, it is your turn]', undefined],
    ]);
    expect(speakerOf({ role: 'tool', toolCallId: 'c1', content: 'x' })).toBeUndefined();
    expect(speakerOf({ role: 'assistant', content: 'x', name: 'critic' })).toBe('critic');
  });
});

describe('asProviderTurns()', () => {
  const own: LLMMessage = { role: 'assistant', content: 'Mine' };
  it('adds a note before a first assistant turn and after a last one, and one to an empty view', () => {
    expect(asProviderTurns([own], 'me', false)).toEqual([
      { role: 'user', content: '[start of the conversation]' },
      own,
      { role: 'user', content: '[me, it is your turn]' },
    ]);
    expect(asProviderTurns([own], 'me', true)[0]).toEqual({
      role: 'user',
      content: '[earlier messages are not shown]',
    });
    expect(asProviderTurns([], 'me', false)).toEqual([
      { role: 'user', content: '[me, it is your turn]' },
    ]);
    const fine: LLMMessage[] = [{ role: 'user', content: 'Hi' }];
    expect(asProviderTurns(fine, 'me', false)).toBe(fine);
  });
});
