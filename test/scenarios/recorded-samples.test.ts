import { describe, expect, it } from 'vitest';

import { workflow as escalation } from '../../samples/escalation.js';
import { workflow as lazy } from '../../samples/lazy-routing.js';
import { workflow as resolver } from '../../samples/structured-resolver.js';
import { replay } from '../../src/index.js';

// API.md §19 over the samples' routing modes: each sample's conversation is recorded and replays
// with every turn (lazy routing, a structured resolver, a stop and run() without a task).

describe('recording the samples', () => {
  it('lazy routing: declines and reroutes replay', async () => {
    const session = lazy.session('lazy-recorded');
    for (const reply of [
      'My invoice is wrong',
      'It is INV-7, please refund it',
      'Also my internet keeps dropping',
      'The router blinks red, is that the internet fault?',
    ]) {
      await session.run(reply);
    }
    const recording = await session.record();
    const report = await replay(lazy, recording);
    expect(report).toEqual({ ok: true, turns: recording.turns.length });
    expect(recording.turns.length).toBeGreaterThan(4);
  });

  it('a structured resolver: its structured answers replay', async () => {
    const session = resolver.session('resolver-recorded');
    for (const reply of ['hi', 'I was charged twice on my invoice']) await session.run(reply);
    const recording = await session.record();
    expect(recording.turns[0]?.message).toBe('StructuredMessage');
    expect(await replay(resolver, recording)).toEqual({ ok: true, turns: recording.turns.length });
  });

  it('a stop on a handoff, then run() without a task', async () => {
    const session = escalation.session('escalation-recorded');
    await session.run('My payment for INV-1002 keeps failing.');
    await session.run();
    const recording = await session.record();
    expect(recording.runs.map((r) => [r.input === null, r.status, r.stopReason])).toEqual([
      [false, 'terminated', 'Handoff to technical from billing detected.'],
      [true, 'awaiting_input', null],
    ]);
    expect(await replay(escalation, recording)).toEqual({
      ok: true,
      turns: recording.turns.length,
    });
  });
});
