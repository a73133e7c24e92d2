import { describe, expect, it } from 'vitest';

import { compileTeamMachine } from '../../orchestrations/teams/team-machine.js';
import { chooseSpeaker, quietSignal } from './agent-turn.js';
import { MachineDriver } from './machine-driver.js';
import type { Orchestration } from '../orchestration.js';
import { initialSessionState } from '../state/session-state.js';

describe('quietSignal()', () => {
  it('shares a signal that never aborts between turns, and renews it every 256 turns', () => {
    // Start from a fresh signal: draw until one differs from the last.
    let last = quietSignal();
    for (let i = 0; i < 256; i++) {
      const next = quietSignal();
      if (next !== last) {
        last = next;
        break;
      }
    }
    const seen = [last];
    for (let i = 1; i < 256; i++) seen.push(quietSignal());
    expect(new Set(seen).size).toBe(1);
    expect(last.aborted).toBe(false);
    // A listener a client leaves on it is let go with it: the 257th turn gets another signal.
    last.addEventListener('abort', () => {});
    const renewed = quietSignal();
    expect(renewed).not.toBe(last);
    expect(renewed.aborted).toBe(false);
  });

  it('takes the listeners a client leaves on it without a "possible memory leak" warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const signal = quietSignal();
      for (let i = 0; i < 20; i++) signal.addEventListener('abort', () => {}, { once: true });
      // Node emits the warning on a later tick.
      await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });
});

describe('chooseSpeaker()', () => {
  it('says a selector chose someone who is not a participant (before the machine is asked)', async () => {
    const machine = compileTeamMachine({
      id: 'team',
      agents: ['planner'],
      transitions: () => ({}),
      selecting: true,
    });
    const orchestration = {
      name: 'team',
      machine,
      participants: new Map(),
      selectSpeaker: async () => 'nobody',
    } as unknown as Orchestration;
    const ctx = { orchestration, driver: new MachineDriver(machine), id: 's' };
    await expect(
      chooseSpeaker(ctx, initialSessionState('selecting', null), undefined),
    ).rejects.toThrowError(
      new Error('Workflow "team" selected "nobody", which is not a participant.'),
    );
  });
});
