import { describe, expect, it } from 'vitest';

import { ConfigError } from '../errors.js';
import { jsonSchemaArguments } from './json-schema-arguments.js';
import { linearRegExp } from './linear-reg-exp.js';
import { tool } from './tool.js';

const issues = (schema: Record<string, unknown>, value: unknown) => {
  const parsed = jsonSchemaArguments({ type: 'object', ...schema }).safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('linearRegExp', () => {
  it('checks a catastrophically backtracking pattern against a hostile value at once', () => {
    const schema = { properties: { word: { type: 'string', pattern: '^(a+)+$' } } };
    // 2^60 steps for a backtracking engine; this test would never end with one.
    expect(issues(schema, { word: `${'a'.repeat(60)}!` })).toEqual([
      'word: must match pattern "^(a+)+$"',
    ]);
    expect(issues(schema, { word: 'a'.repeat(60) })).toEqual([]);
  });

  it('reads JavaScript pattern syntax and keeps each pattern of a schema apart', () => {
    const schema = {
      properties: {
        code: { type: 'string', pattern: '^\\d{3}-(?<part>\\w+)$' },
        emoji: { type: 'string', pattern: '^\\u{1F600}+$' },
        path: { type: 'string', pattern: '^/srv/' },
      },
      patternProperties: { '^x-': { type: 'number' } },
    };
    expect(issues(schema, { code: '123-ab_c', emoji: '😀😀', path: '/srv/a', 'x-n': 1 })).toEqual(
      [],
    );
    expect(issues(schema, { code: '12-a', emoji: 'x', path: '/etc', 'x-n': 'one' })).toEqual([
      'code: must match pattern "^\\d{3}-(?<part>\\w+)$"',
      'emoji: must match pattern "^\\u{1F600}+$"',
      'path: must match pattern "^/srv/"',
      'x-n: must be number',
    ]);
  });

  it('refuses a pattern it cannot run in linear time, naming it', () => {
    expect(() => linearRegExp('(?=a)b')).toThrow(
      'pattern "(?=a)b" cannot be checked in linear time (error parsing regexp: invalid or ' +
        'unsupported Perl syntax: `(?=`)',
    );
    expect(() =>
      tool({
        name: 'lookahead',
        description: '',
        parameters: { type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1' } } },
        execute: () => '',
      }),
    ).toThrow(
      new ConfigError(
        'Tool "lookahead": its JSON Schema `parameters` is invalid (pattern "(a)\\\\1" cannot be ' +
          'checked in linear time (error parsing regexp: invalid escape sequence: `\\1`); ' +
          'lookaround, backreferences and repeat counts over 1000 are not supported). Fix the schema.',
        { path: 'parameters' },
      ),
    );
  });
});

describe('jsonSchemaArguments()', () => {
  it('refuses a property named __proto__ wherever it is, since no argument could pass', () => {
    const nested = JSON.parse(
      '{"type":"object","properties":{"user":{"type":"object","properties":{"__proto__":{}}}}}',
    ) as { type: 'object' };
    expect(() => jsonSchemaArguments(nested)).toThrow(
      'it names a property "__proto__" (at /properties/user/properties), which cannot be ' +
        'checked or passed on safely; rename the property',
    );
    expect(() => jsonSchemaArguments({ type: 'object', required: ['__proto__'] })).toThrow(
      'it names a property "__proto__" (at /required)',
    );
  });
});
