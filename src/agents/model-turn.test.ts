import { describe, expect, it } from 'vitest';

import type { FunctionCall, FunctionExecutionResult } from '../messages/message.js';
import { Handoff } from './handoff.js';
import { handoffAnswer } from './model-turn.js';

const billing = new Handoff({ target: 'billing' });
const handoffs = new Map([[billing.name, billing]]);
const handoffCall: FunctionCall = { id: 'c1', name: billing.name, arguments: '{}' };
const handoffResult: FunctionExecutionResult = {
  callId: 'c1',
  name: billing.name,
  content: billing.message,
  isError: false,
};

const chosen = { handoff: billing, brief: undefined };

describe('handoffAnswer()', () => {
  it('gives a handoff without other calls an empty, frozen context', () => {
    const m = handoffAnswer('triage', chosen, handoffs, [handoffCall], [handoffResult]);
    expect(m).toMatchObject({
      type: 'HandoffMessage',
      source: 'triage',
      target: 'billing',
      content: billing.message,
      context: [],
    });
    expect(m.type === 'HandoffMessage' && Object.isFrozen(m.context)).toBe(true);
    expect(JSON.stringify(m)).toContain('"context":[]');
  });

  it('puts the other calls and their results in one ToolCallSummaryMessage', () => {
    const lookup: FunctionCall = { id: 'c2', name: 'lookup', arguments: '{"q":1}' };
    const found: FunctionExecutionResult = {
      callId: 'c2',
      name: 'lookup',
      content: 'found',
      isError: false,
    };
    const m = handoffAnswer(
      'triage',
      chosen,
      handoffs,
      [handoffCall, lookup],
      [handoffResult, found],
    );
    expect(m.type === 'HandoffMessage' && m.context).toMatchObject([
      {
        type: 'ToolCallSummaryMessage',
        source: 'triage',
        content: 'found',
        toolCalls: [lookup],
        results: [found],
      },
    ]);
  });
});
