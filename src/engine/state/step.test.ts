import { describe, expect, it } from 'vitest';

import { eventOf, kindOfEvent, type StepKind } from './step.js';

const kinds: [StepKind, string][] = [
  [{ kind: 'input' }, 'user_input'],
  [{ kind: 'answer', agents: ['billing'] }, 'agent_response:billing'],
  [{ kind: 'answer', agents: ['billing', 'refunds'] }, 'agent_response:billing,refunds'],
  [{ kind: 'pause', agents: ['billing', 'refunds'] }, 'approval_request:billing,refunds'],
  [{ kind: 'decided', agent: 'billing' }, 'approval_progress:billing'],
  [{ kind: 'ask', agent: 'triage' }, 'user_asked:triage'],
  [{ kind: 'tripped', guardrail: 'no:cards' }, 'guardrail:no:cards'],
  [{ kind: 'stop', complete: false }, 'stop'],
  [{ kind: 'stop', complete: true }, 'complete'],
  [{ kind: 'cancel' }, 'cancel'],
  [{ kind: 'resume' }, 'resume'],
];

describe('the kinds of step and their events', () => {
  it.each(kinds)('%j is logged as %s, which reads back as the same kind', (kind, event) => {
    expect(eventOf(kind)).toBe(event);
    expect(kindOfEvent(event)).toEqual(kind);
  });

  it('reads no kind from an event no step writes', () => {
    for (const event of ['', 'start', 'reset', 'agent_response', 'handoff:billing']) {
      expect(kindOfEvent(event)).toBeUndefined();
    }
  });
});
