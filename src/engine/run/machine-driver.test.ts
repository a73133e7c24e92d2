import { describe, expect, it } from 'vitest';

import { createFlatMachine, edge } from '../../orchestrations/flat-machine.js';
import { MachineDriver } from './machine-driver.js';

function driver(): MachineDriver {
  return new MachineDriver(
    createFlatMachine('desk', {
      triage: { meta: { kind: 'agent', agent: 'triage' }, on: { next: edge('triage', 'next') } },
      awaitingInput: { meta: { kind: 'input' }, on: { message: edge('triage', 'message') } },
      stopped: { meta: { kind: 'stopped' } },
    }),
  );
}

describe('MachineDriver', () => {
  it('follows a transition, a self-transition included', () => {
    const d = driver();
    expect(d.next('awaitingInput', { type: 'message' })).toBe('triage');
    expect(d.next('triage', { type: 'next' })).toBe('triage');
    expect(d.next('triage', { type: 'stop' })).toBe('stopped');
  });

  it('throws, naming the state and the event, when the state has no transition for the event', () => {
    const d = driver();
    expect(() => d.next('triage', { type: 'handoff.billing' })).toThrowError(
      new Error(
        'Machine "desk" has no transition for event "handoff.billing" in state "triage" (it ' +
          'handles "next"). The routing and the compiled machine disagree; this is a bug in the ' +
          'orchestration.',
      ),
    );
    // Asked again (a cached answer must not hide it either).
    expect(() => d.next('triage', { type: 'handoff.billing' })).toThrow(/no transition/);
  });
});
