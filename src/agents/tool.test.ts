import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';

import { ConfigError } from '../errors.js';
import { type Tool, type ToolContext, tool } from './tool.js';

describe('tool()', () => {
  it('derives the JSON Schema the model sees from the zod parameters', () => {
    const lookup = tool({
      name: 'lookup_invoice',
      description: 'Finds an invoice.',
      parameters: z.object({ invoiceId: z.string(), limit: z.number().int().optional() }),
      execute: ({ invoiceId }) => invoiceId,
    });
    expect(lookup.schema).toEqual({
      name: 'lookup_invoice',
      description: 'Finds an invoice.',
      parameters: {
        type: 'object',
        properties: {
          invoiceId: { type: 'string' },
          limit: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
        },
        required: ['invoiceId'],
      },
    });
    expect(lookup.timeoutMs).toBe(60_000);
    expect(Object.isFrozen(lookup)).toBe(true);
    expectTypeOf(lookup).toEqualTypeOf<Tool<{ invoiceId: string; limit?: number | undefined }>>();
  });

  it('types the arguments of execute from the schema', () => {
    tool({
      name: 'f',
      parameters: z.object({ n: z.number() }),
      execute: (args, ctx) => {
        expectTypeOf(args).toEqualTypeOf<{ n: number }>();
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
        return args.n;
      },
    });
  });

  it('rejects names providers refuse', () => {
    const make = (name: string) => () =>
      tool({ name, parameters: z.object({}), execute: () => '' });
    expect(make('look up')).toThrow(ConfigError);
    expect(make('look up')).toThrow(
      'tool(): name "look up" is invalid. Use 1 to 64 letters, digits, "_" or "-".',
    );
    expect(make('x'.repeat(65))).toThrow(ConfigError);
    expect(make('x'.repeat(64))).not.toThrow();
  });

  it('rejects parameters that are not a zod object', () => {
    const make = (parameters: z.ZodType) => () =>
      tool({ name: 'f', parameters, execute: () => '' });
    expect(make(z.string())).toThrow(
      'Tool "f" needs `parameters` to be a z.object({ ... }); models send arguments as an object, ' +
        'but this schema has type "string".',
    );
    expect(make(42 as unknown as z.ZodType)).toThrow(
      'Tool "f" needs `parameters` to be a zod schema such as z.object({ ... }) or a JSON ' +
        'Schema object such as { type: "object", properties: { ... } }.',
    );
    expect(make(z.object({ when: z.date() }))).toThrow(
      'Tool "f": its parameters cannot be described in JSON Schema: `when` is a z.date(). Write ' +
        'z.iso.datetime() instead (an ISO 8601 string; new Date(value) makes it a Date).',
    );
  });

  it('says to wrap a bare zod shape in z.object()', () => {
    const shape = { invoiceId: z.string(), amount: z.number(), note: 'not a schema' };
    const make = () =>
      tool({ name: 'refund', parameters: shape as unknown as z.ZodType, execute: () => '' });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(
      'Tool "refund" got a plain object of zod schemas as `parameters` (invoiceId, amount). ' +
        'Wrap it in z.object(): parameters: z.object({ invoiceId: ..., amount: ... }).',
    );
  });

  it('rejects a timeout that is not a positive number and a missing execute', () => {
    const parameters = z.object({});
    expect(() => tool({ name: 'f', parameters, execute: () => '', timeoutMs: 0 })).toThrow(
      'Tool "f" needs `timeoutMs` to be a positive number of milliseconds, got 0.',
    );
    const execute = undefined as unknown as () => string;
    expect(() => tool({ name: 'f', parameters, execute })).toThrow(
      'Tool "f" needs an `execute` function.',
    );
  });
});
