import { describe, expect, it } from 'vitest';

import { MessageLines } from './message-lines.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('MessageLines', () => {
  it('gives each line once it ends, across chunks, without "\\n" or "\\r\\n"', () => {
    const lines = new MessageLines(100);
    expect(lines.push(bytes('{"a":1}\n{"b"'))).toEqual({ lines: ['{"a":1}'], tooLarge: false });
    expect(lines.push(bytes(':2}\r\n\n{"c":"é"}\n'))).toEqual({
      lines: ['{"b":2}', '', '{"c":"é"}'],
      tooLarge: false,
    });
  });

  it('keeps a multi-byte character split between chunks whole', () => {
    const lines = new MessageLines(100);
    const text = bytes('"é"\n');
    expect(lines.push(text.subarray(0, 2))).toEqual({ lines: [], tooLarge: false });
    expect(lines.push(text.subarray(2))).toEqual({ lines: ['"é"'], tooLarge: false });
  });

  it('accepts a line of exactly maxBytes and reports one byte more, whole or in pieces', () => {
    expect(new MessageLines(4).push(bytes('abcd\n'))).toEqual({ lines: ['abcd'], tooLarge: false });
    expect(new MessageLines(4).push(bytes('ok\nabcde\n'))).toEqual({
      lines: ['ok'],
      tooLarge: true,
    });
    const pieces = new MessageLines(4);
    expect(pieces.push(bytes('abc'))).toEqual({ lines: [], tooLarge: false });
    expect(pieces.push(bytes('de'))).toEqual({ lines: [], tooLarge: true });
  });

  it('drops the part of a line that was too large and reads on from the next line', () => {
    const lines = new MessageLines(4);
    expect(lines.push(bytes('abcdef'))).toEqual({ lines: [], tooLarge: true });
    expect(lines.push(bytes('\nxy\n'))).toEqual({ lines: ['', 'xy'], tooLarge: false });
  });
});
