import { describe, expect, it } from 'vitest';

import { textMessage } from '../../messages/message-factories.js';
import type { AgentMessage, ChatMessage } from '../../messages/message.js';
import { answerStep } from './step-changes.js';

const answer = textMessage({ source: 'billing', content: 'Refunded. Anything else?' });
const note = textMessage({ source: 'system', content: 'Routed back to the desk.' });

const facts = (delta: AgentMessage[], asks: boolean, followUp?: ChatMessage[]) => ({
  agent: 'billing',
  selection: undefined,
  response: { chatMessage: answer },
  delta,
  routing: { event: { type: 'reply' }, ...(followUp === undefined ? {} : { followUp }) },
  next: 'awaitingInput',
  nextMeta: asks
    ? ({ kind: 'input', asks: true } as const)
    : ({ kind: 'agent', agent: 'x' } as const),
  turn: 2,
  check: { stop: null, state: undefined },
  stop: undefined,
});

describe('answerStep()', () => {
  it('takes the delta as its append when nothing follows the answer', () => {
    const delta: AgentMessage[] = [answer];
    const change = answerStep(facts(delta, false));
    expect(change.append).toBe(delta);
    expect(change.unseen).toBe(0);
  });

  it('leaves the delta the stop rule was given as it was when a question or a follow-up joins it', () => {
    const delta: AgentMessage[] = [answer];
    const asked = answerStep(facts(delta, true));
    expect(delta).toEqual([answer]);
    expect(asked.append?.map((m) => m.type)).toEqual(['TextMessage', 'UserInputRequestedEvent']);
    expect(asked.pendingRequest).toMatchObject({ agent: 'billing', kind: 'input' });

    const followed = answerStep(facts(delta, false, [note]));
    expect(delta).toEqual([answer]);
    expect(followed.append).toEqual([answer, note]);
    expect(followed.unseen).toBe(1);
  });
});
