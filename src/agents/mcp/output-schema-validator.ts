import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';

import { formatPath } from '../../zod-issues.js';
import { type JsonSchemaObject, jsonSchemaArguments } from '../json-schema-arguments.js';

/**
 * How the MCP SDK's client checks a tool's `structuredContent` against the tool's
 * `outputSchema`: with Baton's own validator, whose patterns run in linear time. The SDK's
 * default (Ajv with backtracking regular expressions) lets a server whose schema and content are
 * both hostile freeze the host's event loop. A schema that cannot be used (a pattern the
 * linear-time engine cannot run) does not fail the tool list: each call of that tool fails,
 * saying why.
 */
export const outputSchemaValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let check: ReturnType<typeof jsonSchemaArguments>;
    try {
      check = jsonSchemaArguments(schema as JsonSchemaObject);
    } catch (error) {
      const errorMessage = `the output schema cannot be used: ${error instanceof Error ? error.message : String(error)}`;
      return () => ({ valid: false, data: undefined, errorMessage });
    }
    return (input) => {
      const parsed = check.safeParse(input);
      if (parsed.success) return { valid: true, data: input as T, errorMessage: undefined };
      const issues = parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
      return { valid: false, data: undefined, errorMessage: issues.join('; ') };
    };
  },
};
