import { describe, expect, it } from 'vitest';

import { newId } from './ids.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newId', () => {
  it('makes random version 4 UUIDs, distinct across several batches', () => {
    const ids = Array.from({ length: 2000 }, () => newId());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(2000);
  });

  it('uses every hex digit in the random positions (the bytes are random, not a counter)', () => {
    const digits = new Set(
      Array.from({ length: 300 }, () => newId().replaceAll('-', '').slice(13)).join(''),
    );
    expect([...digits].sort().join('')).toBe('0123456789abcdef');
  });

  it('puts a prefix before the UUID', () => {
    const id = newId('call_');
    expect(id.startsWith('call_')).toBe(true);
    expect(id.slice(5)).toMatch(UUID_V4);
  });
});
