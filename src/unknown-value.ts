/**
 * Narrowing values the type system cannot vouch for (a caller's options in plain JavaScript, a
 * driver's reply, a caught error) by looking at them, instead of casting.
 */

/** An object (arrays included) whose fields can be read as `unknown`. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The field `name` of `value` when it is an object, else undefined. */
export function fieldOf(value: unknown, name: string): unknown {
  return isRecord(value) ? value[name] : undefined;
}

/** A caught error's `code` (Node's `ENOENT`, a driver's SQLSTATE), or undefined. */
export function codeOf(error: unknown): unknown {
  return fieldOf(error, 'code');
}

/** `String(error.message)` of a caught error; `'undefined'` when it has none. */
export function messageOf(error: unknown): string {
  return String(fieldOf(error, 'message'));
}
