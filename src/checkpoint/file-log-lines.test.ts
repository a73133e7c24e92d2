import { describe, expect, it } from 'vitest';

import { CheckpointError } from '../errors.js';
import { formatLine, isRecordStart, parseLine } from './file-log-lines.js';

const parse = (line: string, lineNumber = 3) => parseLine('s', 'x.log', line, lineNumber, 2);
const failure = (line: string, lineNumber = 3) => {
  try {
    parse(line, lineNumber);
  } catch (error) {
    expect(error).toBeInstanceOf(CheckpointError);
    return { step: (error as CheckpointError).step, message: (error as Error).message };
  }
  throw new Error(`parsed ${JSON.stringify(line)}`);
};

describe('formatLine()', () => {
  it('writes the step, its kind and the data unescaped (format 2)', () => {
    expect(formatLine({ step: 1, snapshot: true, data: '0a1b2c3d{"v":1}' })).toBe(
      '1=0a1b2c3d{"v":1}\n',
    );
    expect(formatLine({ step: 12, snapshot: false, data: '{"a":"\\"q\\" ü 🚀"}' })).toBe(
      '12+{"a":"\\"q\\" ü 🚀"}\n',
    );
    expect(formatLine({ step: 3, snapshot: false, data: '' })).toBe('3+\n');
  });

  it('writes a JSON line (format 1) for what a format 2 line cannot hold', () => {
    expect(formatLine({ step: 2, snapshot: false, data: 'a\nb' })).toBe(
      '{"step":2,"snapshot":false,"data":"a\\nb"}\n',
    );
    expect(formatLine({ step: 2, snapshot: false, data: 'lone \ud800' })).toBe(
      '{"step":2,"snapshot":false,"data":"lone \\ud800"}\n',
    );
    expect(formatLine({ step: -1, snapshot: true, data: 'x' })).toBe(
      '{"step":-1,"snapshot":true,"data":"x"}\n',
    );
  });

  it('writes lines that parseLine() reads back as they were', () => {
    const records = [
      { step: 1, snapshot: true, data: 'one' },
      { step: 9_007_199_254_740_991, snapshot: false, data: '=+{}\r\t"\\' },
      { step: 4, snapshot: false, data: 'line\nbreak' },
      { step: 5, snapshot: false, data: '' },
    ];
    for (const record of records) {
      expect(parse(formatLine(record).slice(0, -1))).toEqual(record);
    }
  });
});

describe('parseLine()', () => {
  it('reads format 1 lines as before', () => {
    expect(parse('{"step":3,"snapshot":false,"data":"three"}')).toEqual({
      step: 3,
      snapshot: false,
      data: 'three',
    });
  });

  it.each([
    ['an empty line', ''],
    ['no kind after the step', '3three'],
    ['a kind without a step', '+three'],
    ['a step with a leading zero', '03+three'],
    ['a step beyond the safe integers', '9007199254740993+x'],
    ['a negative step', '-3+three'],
    ['a JSON array', '[1,2,3]'],
  ])('refuses %s as not a step record, naming the line and the step after the last', (_, line) => {
    expect(failure(line)).toEqual({
      step: 3,
      message: expect.stringContaining(
        'line 3 of x.log is not a step record (a line starts with "{", or with a step number',
      ) as string,
    });
  });

  it('names the last line when it reads the log from its end', () => {
    expect(failure('x', 0).message).toContain('the last line of x.log is not a step record');
  });

  it('refuses a damaged format 1 line as before', () => {
    expect(failure('{"step":3,"snapshot":false,"da').message).toContain(
      'line 3 of x.log is not valid JSON',
    );
    expect(failure('{"step":3,"snapshot":"no","data":"x"}').message).toContain(
      'line 3 of x.log is not a step record',
    );
  });
});

describe('isRecordStart()', () => {
  it.each([
    '{',
    '{"step":',
    '{"step":12,"sn',
    '1',
    '12',
    '12+',
    '12=',
    '12+0a1b',
    '1234567890123456+',
  ])('takes %j for the start of a record cut short', (tail) => {
    expect(isRecordStart(Buffer.from(tail))).toBe(true);
  });

  it.each(['garbage', '+12', '=', '12x', '12 +', '{"stop"', '12345678901234567', '\u0000'])(
    'refuses %j',
    (tail) => {
      expect(isRecordStart(Buffer.from(tail))).toBe(false);
    },
  );
});
