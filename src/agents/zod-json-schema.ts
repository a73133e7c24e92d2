import { z } from 'zod';

import { ConfigError } from '../errors.js';

/** The zod types JSON cannot carry, and what to write instead when there is a JSON form. */
const UNREPRESENTABLE: Readonly<Record<string, string>> = {
  date: 'Write z.iso.datetime() instead (an ISO 8601 string; new Date(value) makes it a Date).',
  bigint: 'Write z.number().int() or z.string() instead.',
  map: 'Write z.record(z.string(), ...) instead.',
  set: 'Write z.array(...) instead.',
  nan: 'Write z.number() instead.',
  undefined: 'Write .optional() on the field instead.',
  void: 'Write .optional() on the field instead.',
  symbol: 'Use JSON types only.',
  custom: 'Use JSON types only.',
  function: 'Use JSON types only.',
  promise: 'Use JSON types only.',
  transform: 'Use JSON types only.',
};

/**
 * A zod schema as the JSON Schema a model receives, without `$schema`. A part JSON cannot carry
 * (a `z.date()`, a `z.bigint()`…) is a ConfigError naming its field and what to write instead;
 * `what` starts the message (`Tool "lookup": its parameters`), `path` is the error's field.
 */
export function zodJsonSchema(
  schema: z.ZodType,
  io: 'input' | 'output',
  what: string,
  path: string,
): Record<string, unknown> {
  let described: Record<string, unknown>;
  try {
    described = z.toJSONSchema(schema, { io });
  } catch (error) {
    const found = unrepresentable(schema, io)[0];
    const message = error instanceof Error ? error.message : String(error);
    const detail =
      found === undefined
        ? ` (${message}). Use JSON types only.`
        : `: ${found.field === '' ? 'the schema' : `\`${found.field}\``} is a ` +
          `z.${found.type}(). ${UNREPRESENTABLE[found.type]}`;
    throw new ConfigError(`${what} cannot be described in JSON Schema${detail}`, {
      path,
      cause: error,
    });
  }
  const { $schema: _dialect, ...rest } = described;
  return rest;
}

/** The parts of `schema` JSON cannot carry, in the order they appear, with their fields. */
function unrepresentable(
  schema: z.ZodType,
  io: 'input' | 'output',
): { field: string; type: string }[] {
  const found: { field: string; type: string }[] = [];
  try {
    z.toJSONSchema(schema, {
      io,
      unrepresentable: 'any',
      override: (ctx) => {
        const type: string = ctx.zodSchema._zod.def.type;
        // An older zod 4 may give no `path`: the field is then unnamed, the hint still right.
        if (type in UNREPRESENTABLE) found.push({ field: fieldOf(ctx.path ?? []), type });
      },
    });
  } catch {
    return []; // the first error, as zod words it, is then all there is to say
  }
  // zod visits a schema's parts before the schema itself, the last property first.
  return found.reverse();
}

/** A JSON Schema path (`properties.nested.properties.at`) as the field it is (`nested.at`). */
function fieldOf(path: readonly (string | number)[]): string {
  let field = '';
  for (let i = 0; i < path.length; i++) {
    const part = path[i];
    if (part === 'properties' && i + 1 < path.length) {
      field += `${field === '' ? '' : '.'}${String(path[++i])}`;
    } else if (part === 'items') {
      field += '[]';
    } else if (part === 'prefixItems') {
      field += `[${String(path[++i])}]`;
    } else if (part === 'anyOf' || part === 'oneOf' || part === 'allOf') {
      i++; // a member of a union or intersection: the same field
    } else if (part === 'additionalProperties') {
      field += '[key]';
    }
  }
  return field;
}
