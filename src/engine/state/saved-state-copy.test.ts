import { describe, expect, it } from 'vitest';

import { copySavedState } from './saved-state-copy.js';

describe('copySavedState()', () => {
  it('copies plain objects and arrays at every depth, keeping the values', () => {
    const inner = { count: 2, names: ['a', 'b'] };
    const state = { conditions: [inner, { terminated: false }, null], at: 'x' };
    const copy = copySavedState(state);

    expect(copy).toEqual(state);
    expect(copy).not.toBe(state);
    inner.count = 5;
    inner.names.push('c');
    expect(copy).toEqual({
      conditions: [{ count: 2, names: ['a', 'b'] }, { terminated: false }, null],
      at: 'x',
    });
  });

  it('returns primitives as they are and copies other objects with structuredClone', () => {
    const when = new Date(0);
    const copy = copySavedState({ when, n: 1 });
    expect(copy).toEqual({ when: new Date(0), n: 1 });
    expect([null, 3, 'text', true, undefined].map(copySavedState)).toEqual([
      null,
      3,
      'text',
      true,
      undefined,
    ]);
  });

  it('leaves a frozen state frozen and gives back an unfrozen copy', () => {
    const frozen = Object.freeze({ count: Object.freeze([1]) });
    const copy = copySavedState(frozen);
    expect([Object.isFrozen(frozen), Object.isFrozen(copy)]).toEqual([true, false]);
  });
});
