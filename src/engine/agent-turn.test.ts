import { describe, expect, it } from 'vitest';

import { quietSignal } from './agent-turn.js';

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
