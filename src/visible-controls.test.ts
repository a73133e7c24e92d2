import { describe, expect, it } from 'vitest';

import { visibleControls } from './visible-controls.js';

describe('visibleControls()', () => {
  it('shows every control as an escape and leaves printable text alone', () => {
    expect(visibleControls('{"amount":"5000\r amount 5"}')).toBe('{"amount":"5000\\r amount 5"}');
    expect(visibleControls('a\x1b[2J\x1b[8mb\x00\x7f\x9b1A\tc\nd\r\n')).toBe(
      'a\\x1b[2J\\x1b[8mb\\x00\\x7f\\x9b1A\\tc\\nd\\r\\n',
    );
    expect(visibleControls('pay \u202e0005\u2066\u2028')).toBe('pay \\u202e0005\\u2066\\u2028');
    expect(visibleControls('C:\\path é 日本 🎉')).toBe('C:\\path é 日本 🎉');
  });

  it('keeps line breaks and tabs of a body with keepLines, and nothing else', () => {
    expect(visibleControls('one\r\ntwo\n\tthree\rfour\x1b[K', { keepLines: true })).toBe(
      'one\ntwo\n\tthree\\rfour\\x1b[K',
    );
  });
});
