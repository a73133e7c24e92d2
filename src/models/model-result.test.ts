import { describe, expect, it } from 'vitest';

import { normaliseModelResult, normaliseUsage } from './model-result.js';

describe('normaliseUsage()', () => {
  it('shares one frozen zero usage, and gives counted usage an object of its own', () => {
    const none = normaliseUsage(undefined);
    expect(none).toEqual({ promptTokens: 0, completionTokens: 0 });
    expect(normaliseUsage({ promptTokens: -3, completionTokens: Number.NaN })).toBe(none);
    expect(Object.isFrozen(none)).toBe(true);
    const raw = { promptTokens: 12.4, completionTokens: 3 };
    const counted = normaliseUsage(raw);
    expect(counted).toEqual({ promptTokens: 12, completionTokens: 3 });
    expect(counted).not.toBe(raw);
    expect(normaliseUsage(raw)).not.toBe(counted);
  });
});

describe('normaliseModelResult()', () => {
  it("names the agent's client when the client returns no object", () => {
    expect(() => normaliseModelResult('text', 'billing')).toThrow(
      'The ChatClient of agent "billing" returned a value of type string instead of a ModelResult',
    );
    expect(() => normaliseModelResult({ toolCalls: {} }, 'billing')).toThrow(
      'The ChatClient of agent "billing" returned toolCalls as a value of type object instead of an array.',
    );
  });

  it('keeps refusal: true and drops any other refusal value', () => {
    const base = { content: 'No.', toolCalls: [], usage: {} };
    expect(normaliseModelResult({ ...base, refusal: true }, 'a').refusal).toBe(true);
    expect(normaliseModelResult({ ...base, refusal: 'yes' }, 'a')).not.toHaveProperty('refusal');
  });
});
