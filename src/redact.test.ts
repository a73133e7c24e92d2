import { describe, expect, it } from 'vitest';

import { redactSecrets, redactUrl, urlSecrets } from './redact.js';

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

describe('redactUrl()', () => {
  it('hides a user name, a password and every query value, and keeps the rest', () => {
    expect(redactUrl('https://alice:s3cret@gw.example.com:8443/v1?key=abc&api-version=2024')).toBe(
      'https://[redacted]@gw.example.com:8443/v1?key=[redacted]&api-version=[redacted]',
    );
    expect(redactUrl('http://127.0.0.1:9/v1')).toBe('http://127.0.0.1:9/v1');
    expect(redactUrl('not a url')).toBe('not a url');
  });
});

describe('urlSecrets()', () => {
  it('lists the credentials of a URL as written and decoded', () => {
    expect(urlSecrets('https://al%40ice:p%3Ass@h/v1?key=a%2Bb+c&x=')).toEqual([
      'al%40ice',
      'al@ice',
      'p%3Ass',
      'p:ss',
      'a%2Bb+c',
      'a+b c',
    ]);
    expect(urlSecrets('http://127.0.0.1:9/v1')).toEqual([]);
  });
});
