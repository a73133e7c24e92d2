import { createRequire } from 'node:module';

import type * as Re2jsModule from 're2js';
import type { RE2JS } from 're2js';

// re2js is loaded with the first pattern, as Ajv is with the first JSON Schema
// (json-schema-arguments.ts).
const load = createRequire(import.meta.url);
let loaded: typeof RE2JS | undefined;

function re2(): typeof RE2JS {
  if (loaded === undefined) {
    const re2js: typeof Re2jsModule = load('re2js');
    loaded = re2js.RE2JS;
  }
  return loaded;
}

/**
 * Ajv's regular-expression engine for JSON Schema `pattern` and `patternProperties`: RE2 (the
 * pure-JavaScript `re2js`), whose matching time is linear in the input. A schema may come from an
 * MCP server and arguments from a model, so a pattern such as `^(a+)+$` must not be able to
 * freeze the event loop on an argument such as `'aaaa…a!'` the way a backtracking engine does
 * (before any tool timeout could fire). The pattern is read as JavaScript syntax (`\d`, `\u{…}`,
 * `(?<name>…)`); one RE2 cannot run (lookaround, backreferences, repeat counts over 1000)
 * throws when the schema is compiled, naming the pattern.
 */
export const linearRegExp = Object.assign(
  (pattern: string): { test(text: string): boolean; toString(): string } => {
    // Outside the try: a failure to load re2js is not the pattern's fault.
    const engine = re2();
    let compiled: RE2JS;
    try {
      compiled = engine.compile(engine.translateRegExp(pattern));
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new Error(
        `pattern ${JSON.stringify(pattern)} cannot be checked in linear time (${detail}); ` +
          'lookaround, backreferences and repeat counts over 1000 are not supported',
        { cause: error },
      );
    }
    return {
      test: (text) => compiled.test(text),
      // Ajv keys its cache of compiled patterns by this text, so it must differ per pattern.
      toString: () => `re2:${pattern}`,
    };
  },
  // What Ajv's standalone code would call; Baton never generates standalone code.
  { code: 'linearRegExp' },
);
