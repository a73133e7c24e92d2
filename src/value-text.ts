/**
 * The text a tool's result or thrown value becomes for the model. It never throws: a string is
 * kept, anything else is JSON (a BigInt as its decimal digits), then `String(value)`, then a type
 * tag such as `[object Object]` — a database row with a BigInt, a null-prototype object or an
 * object whose `toString` throws must not take the process down.
 */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    const json = JSON.stringify(value, bigintAsText);
    if (json !== undefined) return json;
  } catch {
    // Circular, a throwing toJSON or getter: try the plainer forms below.
  }
  try {
    return String(value);
  } catch {
    return typeTag(value);
  }
}

/** The message of a thrown `Error`, else the thrown value as `valueText`. Never throws. */
export function thrownText(error: unknown): string {
  // `instanceof` itself runs code for a Proxy (its getPrototypeOf trap), so it is inside the try.
  try {
    if (error instanceof Error) return String(error.message);
  } catch {
    return typeTag(error);
  }
  return valueText(error);
}

function bigintAsText(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

function typeTag(value: unknown): string {
  try {
    return Object.prototype.toString.call(value);
  } catch {
    return `[${typeof value}]`;
  }
}
