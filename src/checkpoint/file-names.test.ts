import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { sessionIdOfStem, sessionStem } from './file-names.js';

describe('sessionStem()', () => {
  it('keeps the names the store has always given well-formed ids', () => {
    expect(sessionStem('s')).toBe('s-cw');
    expect(sessionStem('legacy-file')).toBe(
      `s-${Buffer.from('legacy-file').toString('base64url')}`,
    );
    const long = 'ü'.repeat(100);
    expect(sessionStem(long)).toBe(`h-${createHash('sha256').update(long).digest('hex')}`);
  });

  it('maps ids that differ only in a lone surrogate to different stems', () => {
    const stems = ['a\uD800', 'a\uDC00', 'a\uFFFD', 'a'].map(sessionStem);
    expect(stems).toEqual(['u-YQAA2A', 'u-YQAA3A', 's-Ye-_vQ', 's-YQ']);
    expect(sessionStem('\uD800'.repeat(100))).not.toBe(sessionStem('\uDC00'.repeat(100)));
    expect(sessionStem('\uD800'.repeat(100))).toMatch(/^v-[0-9a-f]{64}$/);
  });

  it('reads the id back from a readable stem', () => {
    for (const id of ['s', 'a\uD800', 'a\uDC00', 'ünï 🚀/x']) {
      expect(sessionIdOfStem(sessionStem(id))).toBe(id);
    }
    expect(sessionIdOfStem(sessionStem('x'.repeat(300)))).toBeUndefined();
  });
});
