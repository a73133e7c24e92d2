import { describe, expect, it } from 'vitest';

import type { FunctionCall } from '../messages/message.js';
import { Handoff } from './handoff.js';
import { type CallSetup, runCalls } from './run-calls.js';
import { realTimer } from './tool-execution.js';

const billing = new Handoff({ target: 'billing' });
const handoffs = new Map([[billing.name, billing]]);
const setup: CallSetup = {
  agent: 'triage',
  tools: new Map(),
  middleware: [],
  timer: realTimer,
  signal: new AbortController().signal,
  sessionId: 's1',
  offered: [billing.name],
};

describe('runCalls()', () => {
  it('answers calls that only hand off at once, not as a promise, the first handoff chosen', () => {
    const calls: FunctionCall[] = [
      { id: 'c1', name: billing.name, arguments: '{}' },
      { id: 'c2', name: billing.name, arguments: '{}' },
    ];
    const chosen: Handoff[] = [];
    const results = runCalls(calls, undefined, handoffs, setup, (h) => chosen.push(h));
    expect(Array.isArray(results)).toBe(true);
    expect(chosen).toEqual([billing]);
    expect(
      (results as { callId: string; isError: boolean }[]).map((r) => [r.callId, r.isError]),
    ).toEqual([
      ['c1', false],
      ['c2', true],
    ]);
  });

  it('runs other calls as a promise: an unknown tool becomes an error result for the model', async () => {
    const calls: FunctionCall[] = [{ id: 'c3', name: 'lookup', arguments: '{}' }];
    const running = runCalls(calls, undefined, handoffs, setup);
    expect(running).toBeInstanceOf(Promise);
    const [result] = await running;
    expect(result).toMatchObject({ callId: 'c3', name: 'lookup', isError: true });
    expect(result?.content).toContain('lookup');
  });
});
