import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { ConfigError } from '../errors.js';
import { zodJsonSchema } from './zod-json-schema.js';

const describeIt = (schema: z.ZodType) => () =>
  zodJsonSchema(schema, 'input', 'Tool "t": its parameters', 'parameters');

describe('zodJsonSchema()', () => {
  it('describes a schema of JSON types, without $schema', () => {
    expect(describeIt(z.object({ at: z.iso.datetime() }))()).toEqual({
      type: 'object',
      properties: {
        at: {
          type: 'string',
          format: 'date-time',
          pattern: expect.any(String) as unknown,
        },
      },
      required: ['at'],
    });
  });

  it('names the field of a date, however deep, and says to write z.iso.datetime()', () => {
    const nested = z.object({
      id: z.string(),
      window: z.object({ from: z.iso.datetime(), until: z.date().optional() }),
    });
    let thrown: unknown;
    try {
      describeIt(nested)();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).path).toBe('parameters');
    expect((thrown as ConfigError).message).toBe(
      'Tool "t": its parameters cannot be described in JSON Schema: `window.until` is a z.date(). ' +
        'Write z.iso.datetime() instead (an ISO 8601 string; new Date(value) makes it a Date).',
    );
    expect(describeIt(z.object({ days: z.array(z.date()) }))).toThrow(
      'Tool "t": its parameters cannot be described in JSON Schema: `days[]` is a z.date(). ' +
        'Write z.iso.datetime() instead (an ISO 8601 string; new Date(value) makes it a Date).',
    );
    expect(describeIt(z.object({ at: z.union([z.date(), z.number()]) }))).toThrow(
      '`at` is a z.date().',
    );
  });

  it('names the first field JSON cannot carry and what to write instead', () => {
    expect(describeIt(z.object({ n: z.bigint(), at: z.date() }))).toThrow(
      'Tool "t": its parameters cannot be described in JSON Schema: `n` is a z.bigint(). ' +
        'Write z.number().int() or z.string() instead.',
    );
    expect(describeIt(z.object({ tags: z.set(z.string()) }))).toThrow(
      'Tool "t": its parameters cannot be described in JSON Schema: `tags` is a z.set(). ' +
        'Write z.array(...) instead.',
    );
    expect(describeIt(z.object({ check: z.custom<string>() }))).toThrow(
      'Tool "t": its parameters cannot be described in JSON Schema: `check` is a z.custom(). ' +
        'Use JSON types only.',
    );
  });
});
