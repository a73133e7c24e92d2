import { describe, expect, it } from 'vitest';

import { redactSecrets } from './redact.js';

describe('redactSecrets()', () => {
  it('replaces the given secrets, Bearer tokens and sk- keys, and nothing else', () => {
    expect(
      redactSecrets(
        'key my-own-key-123 then Authorization: Bearer abc.DEF-1 and sk-abcdefghijklmnop1234 ok',
        ['my-own-key-123'],
      ),
    ).toBe('key [redacted] then Authorization: Bearer [redacted] and [redacted] ok');
    expect(redactSecrets('{"auth":"bearer tok_9"}')).toBe('{"auth":"bearer [redacted]"}');
    expect(redactSecrets(redactSecrets('Bearer abc'))).toBe('Bearer [redacted]');
    expect(redactSecrets('Connection error.', ['short', undefined])).toBe('Connection error.');
  });
});
