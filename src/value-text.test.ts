import { describe, expect, it } from 'vitest';

import { thrownText, valueText } from './value-text.js';

/** A value whose every trap throws: even `instanceof` and `typeof`-adjacent reads run its code. */
const hostile = new Proxy(
  {},
  Object.fromEntries(
    (['get', 'getPrototypeOf', 'ownKeys', 'has', 'getOwnPropertyDescriptor'] as const).map(
      (trap) => [
        trap,
        () => {
          throw new Error(`proxy ${trap} trap`);
        },
      ],
    ),
  ),
);

describe('thrownText()', () => {
  it('gives an Error its message', () => {
    expect(thrownText(new Error('disk full'))).toBe('disk full');
  });

  it('turns a thrown Proxy whose traps all throw into a type tag instead of throwing', () => {
    expect(thrownText(hostile)).toBe('[object]');
  });

  it('turns a thrown BigInt row into JSON with the digits', () => {
    expect(thrownText({ id: 12345678901234567890n })).toBe('{"id":"12345678901234567890"}');
  });
});

describe('valueText()', () => {
  it('turns a Proxy whose traps all throw into a type tag instead of throwing', () => {
    expect(valueText(hostile)).toBe('[object]');
  });

  it('keeps strings and gives a null-prototype object as JSON', () => {
    const row = Object.assign(Object.create(null) as object, { a: 1 });
    expect(valueText('plain')).toBe('plain');
    expect(valueText(row)).toBe('{"a":1}');
  });
});
