import { createRequire } from 'node:module';

import type * as AjvModule from 'ajv';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import type * as Ajv2019Module from 'ajv/dist/2019.js';
import type * as Ajv2020Module from 'ajv/dist/2020.js';
import type * as AjvFormatsModule from 'ajv-formats';
import { z } from 'zod';

import { isRecord } from '../unknown-value.js';
import { linearRegExp } from './linear-reg-exp.js';

/** A JSON Schema of a tool's arguments: an object schema, as models and MCP servers use them. */
export type JsonSchemaObject = { readonly type: 'object'; readonly [keyword: string]: unknown };

type AjvInstance = AjvModule.Ajv | Ajv2019Module.Ajv2019 | Ajv2020Module.Ajv2020;
type Dialect = 'draft-07' | '2019-09' | '2020-12';

const instances = new Map<Dialect, AjvInstance>();

// Ajv is loaded when the first JSON Schema is compiled, with `require` (it is CommonJS) so that
// compiling stays synchronous: an application whose tools are all zod does not pay its ~45 ms.
const load = createRequire(import.meta.url);

/**
 * One validator per dialect, made on first use. Arguments pass to the tool unchanged: no
 * defaults filled in, no coercion, no properties removed. `strict: false` because a server's
 * schema may carry keywords or formats of its own, which JSON Schema says to ignore. Patterns run
 * on a linear-time engine (`linearRegExp`): a schema's author cannot make an argument freeze us.
 */
function validatorFor(dialect: Dialect): AjvInstance {
  let ajv = instances.get(dialect);
  if (ajv === undefined) {
    const options = {
      allErrors: true,
      strict: false,
      logger: false,
      addUsedSchema: false,
      code: { regExp: linearRegExp },
    } as const;
    ajv = newAjv(dialect, options);
    const formats: typeof AjvFormatsModule.default = load('ajv-formats');
    formats.default(ajv);
    instances.set(dialect, ajv);
  }
  return ajv;
}

function newAjv(dialect: Dialect, options: Options): AjvInstance {
  if (dialect === '2020-12') {
    const { Ajv2020 }: typeof Ajv2020Module = load('ajv/dist/2020.js');
    return new Ajv2020(options);
  }
  if (dialect === '2019-09') {
    const { Ajv2019 }: typeof Ajv2019Module = load('ajv/dist/2019.js');
    return new Ajv2019(options);
  }
  const { Ajv }: typeof AjvModule = load('ajv');
  return new Ajv(options);
}

/**
 * The dialect named by `$schema`. Without one it is 2020-12, the default of the MCP
 * specification; draft-04 and draft-06 schemas are read as draft-07, the closest dialect Ajv has.
 */
function dialectOf(schema: JsonSchemaObject): { dialect: Dialect; schema: JsonSchemaObject } {
  const uri = schema.$schema;
  if (uri === undefined || (typeof uri === 'string' && uri.includes('/draft/2020-12/'))) {
    return { dialect: '2020-12', schema };
  }
  if (typeof uri === 'string' && uri.includes('/draft/2019-09/')) {
    return { dialect: '2019-09', schema };
  }
  if (typeof uri === 'string' && uri.includes('/draft-07/')) return { dialect: 'draft-07', schema };
  const { $schema: _older, ...rest } = schema;
  return { dialect: 'draft-07', schema: { ...rest, type: schema.type } };
}

/**
 * Compiles `schema` into a zod schema that checks arguments with Ajv, so a tool defined by a JSON
 * Schema is validated exactly where a zod tool is, with issues in the same `path: message` form.
 * Throws (Ajv's error) when the schema itself is invalid.
 */
export function jsonSchemaArguments(schema: JsonSchemaObject): z.ZodType<Record<string, unknown>> {
  const proto = protoPropertyAt(schema, '');
  if (proto !== undefined) {
    throw new Error(
      `it names a property "__proto__" (at ${proto}), which cannot be checked or passed on ` +
        'safely; rename the property',
    );
  }
  const { dialect, schema: compiled } = dialectOf(schema);
  const ajv = validatorFor(dialect);
  const validate: ValidateFunction = ajv.compile(compiled);
  // The compiled function stands alone; dropping Ajv's cache entry keeps memory flat when tools
  // are made again and again (one `mcpTools()` per session, say).
  ajv.removeSchema(compiled);
  return z.custom<Record<string, unknown>>().superRefine((value, ctx) => {
    if (validate(value)) return;
    for (const error of validate.errors ?? []) {
      const { path, message } = issueOf(error);
      ctx.addIssue({ code: 'custom', path, message });
    }
  });
}

/**
 * Where `schema` names a property `__proto__` (in `properties` or `required`), as a JSON pointer,
 * or undefined. Ajv skips such a property (a guard against prototype pollution) and the MCP SDK
 * drops it from `properties` while `required` keeps it, so every call of the tool would fail.
 */
function protoPropertyAt(schema: unknown, at: string): string | undefined {
  if (!isRecord(schema)) return undefined;
  const record = schema;
  if (!Array.isArray(schema)) {
    const { properties, required } = record;
    if (
      typeof properties === 'object' &&
      properties !== null &&
      Object.hasOwn(properties, '__proto__')
    ) {
      return `${at}/properties`;
    }
    if (Array.isArray(required) && required.includes('__proto__')) return `${at}/required`;
  }
  for (const key of Object.keys(record)) {
    const found = protoPropertyAt(
      record[key],
      `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`,
    );
    if (found !== undefined) return found;
  }
  return undefined;
}

/** An Ajv error as a zod issue: the path of the bad value and what is wrong with it. */
function issueOf(error: ErrorObject): { path: (string | number)[]; message: string } {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((key) => (/^(0|[1-9]\d*)$/.test(key) ? Number(key) : key));
  const params: Record<string, unknown> = error.params;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return { path: [...path, params.missingProperty], message: 'is required' };
  }
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return { path: [...path, params.additionalProperty], message: 'is not allowed' };
  }
  return { path, message: error.message ?? `fails "${error.keyword}"` };
}
