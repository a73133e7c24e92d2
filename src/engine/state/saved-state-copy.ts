/**
 * A copy of a saved state a user object handed the engine (or is handed by it), so that neither
 * side ever holds the other's object: the engine freezes what it keeps, and a condition may change
 * what it keeps. Saved states are JSON by contract: arrays and plain objects are walked by hand
 * (`structuredClone` costs microseconds on a state of one counter, checked once per delta); any
 * other object goes through `structuredClone`.
 */
export function copySavedState(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copySavedState);
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  // Walked without `Object.entries`, which would allocate an array per field.
  for (const key in value) {
    if (Object.hasOwn(value, key)) copy[key] = copySavedState(Reflect.get(value, key));
  }
  return copy;
}
