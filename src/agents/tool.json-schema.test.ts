import { describe, expect, expectTypeOf, it } from 'vitest';

import { ManualTimer } from '../../test/support/test-context.js';
import { ConfigError } from '../errors.js';
import type { FunctionExecutionResult } from '../messages/message.js';
import { type Tool, tool } from './tool.js';
import { toolExecutor } from './tool-execution.js';

const order = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    sku: { type: 'string', pattern: '^[A-Z]{3}-\\d+$' },
    quantity: { type: 'integer', minimum: 1 },
    giftWrap: { type: 'boolean', default: false },
    lines: { type: 'array', items: { type: 'object', properties: { note: { type: 'string' } } } },
  },
  required: ['sku', 'quantity'],
  additionalProperties: false,
} as const;

/** Runs one call of `t` with these JSON arguments and returns its result. */
async function callWith(t: Tool, args: string): Promise<FunctionExecutionResult> {
  const run = toolExecutor(new Map([[t.name, t]]), {
    context: { signal: new AbortController().signal, sessionId: 's1', agent: 'clerk' },
    offered: [t.name],
    timer: new ManualTimer().timer,
  });
  return run({ id: 'c1', name: t.name, arguments: args });
}

describe('tool() with a JSON Schema', () => {
  it('sends the schema to the model unchanged and types the arguments as an object', () => {
    const seen: unknown[] = [];
    const place = tool({
      name: 'place_order',
      description: 'Places an order.',
      parameters: order,
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        seen.push(args);
        return 'ok';
      },
    });
    expect(place.schema).toEqual({
      name: 'place_order',
      description: 'Places an order.',
      parameters: order,
    });
    expect(place.schema.parameters).not.toBe(order);
    expectTypeOf(place).toEqualTypeOf<Tool<Record<string, unknown>>>();
  });

  it('passes valid arguments through as they came: no defaults, no coercion', async () => {
    const seen: unknown[] = [];
    const place = tool({
      name: 'place_order',
      parameters: order,
      execute: (args) => {
        seen.push(args);
        return 'placed';
      },
    });
    expect(await callWith(place, '{"sku":"ABC-1","quantity":2}')).toEqual({
      callId: 'c1',
      name: 'place_order',
      content: 'placed',
      isError: false,
    });
    expect(seen).toEqual([{ sku: 'ABC-1', quantity: 2 }]);
  });

  it('checks the arguments before execute and names every bad field', async () => {
    const seen: unknown[] = [];
    const place = tool({
      name: 'place_order',
      parameters: order,
      execute: (args) => seen.push(args),
    });
    const result = await callWith(
      place,
      '{"sku":"abc","quantity":0,"colour":"red","lines":[{"note":7}]}',
    );
    expect(result).toEqual({
      callId: 'c1',
      name: 'place_order',
      content:
        'Tool "place_order" received invalid arguments: colour: is not allowed; ' +
        'sku: must match pattern "^[A-Z]{3}-\\d+$"; quantity: must be >= 1; ' +
        'lines[0].note: must be string. Fix them and call the tool again.',
      isError: true,
    });
    expect(await callWith(place, '{"quantity":1}')).toMatchObject({
      content:
        'Tool "place_order" received invalid arguments: sku: is required. ' +
        'Fix them and call the tool again.',
    });
    expect(await callWith(place, '[1]')).toMatchObject({
      content:
        'Tool "place_order" received invalid arguments: (root): must be object. ' +
        'Fix them and call the tool again.',
    });
    expect(seen).toEqual([]);
  });

  it('reads draft-07 schemas, as servers built on zod 3 send them, and checks formats', async () => {
    const fetchPage = tool({
      name: 'fetch_page',
      parameters: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { url: { type: 'string', format: 'uri' }, tries: { $ref: '#/definitions/n' } },
        definitions: { n: { type: 'number', exclusiveMaximum: 5 } },
        required: ['url'],
      },
      execute: ({ url }) => `fetched ${String(url)}`,
    });
    expect((await callWith(fetchPage, '{"url":"https://example.com/a","tries":4}')).content).toBe(
      'fetched https://example.com/a',
    );
    expect((await callWith(fetchPage, '{"url":"not a url","tries":5}')).content).toBe(
      'Tool "fetch_page" received invalid arguments: url: must match format "uri"; ' +
        'tries: must be < 5. Fix them and call the tool again.',
    );
  });

  it('treats a schema without $schema as 2020-12 and ignores keywords it does not know', async () => {
    const pick = tool({
      name: 'pick',
      parameters: {
        type: 'object',
        properties: {
          pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
        },
        'x-vendor-hint': 'ignored',
      },
      execute: () => 'picked',
    });
    expect((await callWith(pick, '{"pair":["a",1]}')).content).toBe('picked');
    expect((await callWith(pick, '{"pair":[1,"a"]}')).content).toBe(
      'Tool "pick" received invalid arguments: pair[0]: must be string; pair[1]: must be number. ' +
        'Fix them and call the tool again.',
    );
  });

  it('rejects a schema that is not an object schema or that Ajv cannot compile', () => {
    const make = (parameters: unknown) => () =>
      tool({ name: 'f', parameters: parameters as { type: 'object' }, execute: () => '' });
    expect(make({ type: 'string' })).toThrow(ConfigError);
    expect(make({ type: 'string' })).toThrow(
      'Tool "f" needs its JSON Schema `parameters` to have type "object"; models send arguments ' +
        'as an object, but this schema has type "string".',
    );
    expect(make({})).toThrow('but this schema has type null.');
    expect(make({ type: 'object', properties: { n: { type: 'nope' } } })).toThrow(
      'Tool "f": its JSON Schema `parameters` is invalid (schema is invalid: ' +
        'data/properties/n/type must be equal to one of the allowed values, ' +
        'data/properties/n/type must be array, data/properties/n/type must match a schema in anyOf). ' +
        'Fix the schema.',
    );
    expect(make({ type: 'object', properties: { n: { $ref: '#/$defs/missing' } } })).toThrow(
      'Tool "f": its JSON Schema `parameters` is invalid (can\'t resolve reference ' +
        '#/$defs/missing from id #). Fix the schema.',
    );
  });

  it('keeps checking against its own copy when the caller changes the schema later', async () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } } } as {
      type: 'object';
      properties: Record<string, unknown>;
    };
    const t = tool({ name: 't', parameters: schema, execute: () => 'ok' });
    schema.properties.n = { type: 'string' };
    expect((await callWith(t, '{"n":1}')).content).toBe('ok');
    expect(t.schema.parameters).toEqual({ type: 'object', properties: { n: { type: 'number' } } });
  });
});
