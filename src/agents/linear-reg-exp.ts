import { RE2JS } from 're2js';

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
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
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
