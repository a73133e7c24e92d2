import { describe, expect, it } from 'vitest';

import { compactMessage, expandMessage } from './compact-message.js';

const AT = Date.parse('2026-11-24T10:40:29.400Z');

const roundTrip = (message: Record<string, unknown>) =>
  expandMessage(JSON.parse(JSON.stringify(compactMessage(message, AT))), AT);

describe('compactMessage()', () => {
  it('writes keys, type, time and usage short', () => {
    const message = {
      type: 'TextMessage',
      id: 'c163a6cd-3b5e-44cc-85eb-8f9df8badce9',
      source: 'triage',
      createdAt: '2026-11-24T10:40:29.388Z',
      metadata: {},
      usage: { promptTokens: 0, completionTokens: 3 },
      content: 'Anything else?',
    };
    expect(compactMessage(message, AT)).toEqual([
      0,
      0,
      1,
      'c163a6cd-3b5e-44cc-85eb-8f9df8badce9',
      2,
      'triage',
      3,
      -12,
      4,
      {},
      5,
      [0, 3],
      6,
      'Anything else?',
    ]);
    const json = JSON.stringify(message);
    expect(JSON.stringify(compactMessage(message, AT)).length).toBeLessThan(json.length * 0.6);
  });

  it('round-trips every message exactly: keys, their order and values', () => {
    const messages: Record<string, unknown>[] = [
      {
        type: 'HandoffMessage',
        id: 'x',
        source: 'a',
        createdAt: '2026-11-24T10:40:29.388Z',
        metadata: { createdAt: 'not coded', type: 1 },
        target: 'b',
        content: 'go',
        context: [{ type: 'TextMessage', createdAt: '2026-11-24T10:40:29.388Z' }],
      },
      // Keys in another order, values that are not coded: an ISO text with an offset or without
      // milliseconds, an unknown type, usage with a third key or in another order.
      { content: 'c', createdAt: '2026-11-24T11:40:29.388+01:00', type: 'FutureMessage', id: 'y' },
      { type: 'TextMessage', createdAt: '2026-11-24T10:40:29Z', usage: { promptTokens: 1 } },
      { usage: { completionTokens: 1, promptTokens: 2 }, createdAt: 'yesterday' },
      { usage: { promptTokens: 1, completionTokens: 2, cached: 0 }, createdAt: 5 },
      { type: 7, createdAt: null, usage: [1, 2], extra: [0, 1], 0: 'zero' },
      JSON.parse('{"__proto__":{"polluted":true},"constructor":"c","toString":1}') as Record<
        string,
        unknown
      >,
      {},
    ];
    for (const message of messages) {
      const back = roundTrip(message);
      expect(back).toStrictEqual(message);
      expect(JSON.stringify(back)).toBe(JSON.stringify(message));
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('leaves out what JSON leaves out of an object', () => {
    const message = { type: 'TextMessage', usage: undefined, context: undefined, content: 'c' };
    expect(roundTrip(message)).toStrictEqual({ type: 'TextMessage', content: 'c' });
  });
});

describe('expandMessage()', () => {
  it('says what is wrong with a damaged message', () => {
    expect(expandMessage({ type: 0 }, AT)).toBe('is not a list of keys and values');
    expect(expandMessage([0, 0, 1], AT)).toBe('is not a list of keys and values');
    expect(expandMessage([99, 'x'], AT)).toBe('has the unknown key number 99');
    expect(expandMessage([0, 99], AT)).toBe('has the type number 99');
    expect(expandMessage([null, 'x'], AT)).toBe('has the key null');
    expect(expandMessage([1, 'a', 'id', 'b'], AT)).toBe('has the key "id" twice');
    expect(expandMessage([0, 'TextMessage'], AT)).toBe('has the type number "TextMessage"');
    expect(expandMessage([3, 0.5], AT)).toBe('has the time offset 0.5');
    expect(expandMessage([3, '2026-11-24T10:40:29.388Z'], AT)).toBe(
      'has the time offset "2026-11-24T10:40:29.388Z"',
    );
    expect(expandMessage([3, 1e300], AT)).toBe('has the time offset 1e+300');
    expect(expandMessage([5, [1]], AT)).toBe('has a usage that is not two numbers');
    expect(expandMessage([5, { promptTokens: 1 }], AT)).toBe('has a usage that is not two numbers');
  });
});
