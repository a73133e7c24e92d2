/**
 * A message as a format 3 step record holds it: a flat list of keys and values in the message's own
 * key order, `[key, value, key, value, …]`. A key every message has is written as its index in
 * `MESSAGE_KEYS` (any other key as its name), and three values shrink:
 *
 * - `type` as its index in `MESSAGE_TYPES` (`0` for `"TextMessage"`);
 * - `createdAt` as milliseconds from the record's own time (`-1`), when the ISO text is exactly
 *   what `Date.prototype.toISOString()` writes for that instant;
 * - `usage` as `[promptTokens, completionTokens]`, when it holds exactly those two numbers.
 *
 * A value that does not fit is written as it is under the key's name, so every message
 * round-trips exactly (same keys, same order, same values). A message is most of a step record's bytes: these are about 45 % of a
 * short text message's JSON.
 */

// Both lists are part of the format: append to them, never reorder or remove.
const MESSAGE_KEYS = ['type', 'id', 'source', 'createdAt', 'metadata', 'usage', 'content'] as const;
const MESSAGE_TYPES = [
  'TextMessage',
  'StopMessage',
  'HandoffMessage',
  'ToolCallSummaryMessage',
  'StructuredMessage',
  'ToolCallRequestEvent',
  'ToolCallExecutionEvent',
  'UserInputRequestedEvent',
  'ThoughtEvent',
  'ModelClientStreamingChunkEvent',
  'SelectSpeakerEvent',
  'ToolApprovalRequestEvent',
  'ToolApprovalResponseEvent',
  'GuardrailTrippedEvent',
  'ToolInDoubtEvent',
] as const;

const KEY_INDEX: ReadonlyMap<string, number> = new Map(MESSAGE_KEYS.map((key, i) => [key, i]));
const TYPE_INDEX: ReadonlyMap<string, number> = new Map(MESSAGE_TYPES.map((type, i) => [type, i]));
const TYPE = 0;
const CREATED_AT = 3;
const USAGE = 5;

/** `message` (an object, as the thread holds it) in its compact form; `at` is the record's time. */
export function compactMessage(message: Readonly<Record<string, unknown>>, at: number): unknown[] {
  const out: unknown[] = [];
  for (const key in message) {
    if (!Object.hasOwn(message, key)) continue;
    const value = message[key];
    // What JSON leaves out of an object (a list would write `null`).
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    const index = KEY_INDEX.get(key);
    if (index === undefined) {
      out.push(key, value);
      continue;
    }
    const compact = compactValue(index, value, at);
    // A value that stays as it is goes under the key's name: under its number it would be read
    // as the short form (a `createdAt` of `5` as 5 ms after the record).
    if (compact === AS_IS) out.push(key, value);
    else out.push(index, compact);
  }
  return out;
}

const AS_IS = Symbol('as is');

function compactValue(index: number, value: unknown, at: number): unknown {
  if (index === TYPE) return typeof value === 'string' ? (TYPE_INDEX.get(value) ?? AS_IS) : AS_IS;
  if (index === CREATED_AT) {
    if (typeof value !== 'string') return AS_IS;
    const ms = Date.parse(value);
    return Number.isFinite(ms) && new Date(ms).toISOString() === value ? ms - at : AS_IS;
  }
  if (index === USAGE) {
    return isTokenUsage(value) ? [value.promptTokens, value.completionTokens] : AS_IS;
  }
  return value;
}

function isTokenUsage(value: unknown): value is { promptTokens: number; completionTokens: number } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return (
    keys.length === 2 &&
    keys[0] === 'promptTokens' &&
    keys[1] === 'completionTokens' &&
    'promptTokens' in value &&
    typeof value.promptTokens === 'number' &&
    'completionTokens' in value &&
    typeof value.completionTokens === 'number'
  );
}

/**
 * A message from its compact form, or a string saying what is wrong with it (the caller names the
 * record); `at` is the record's time.
 */
export function expandMessage(compact: unknown, at: number): Record<string, unknown> | string {
  if (!Array.isArray(compact) || compact.length % 2 !== 0) {
    return 'is not a list of keys and values';
  }
  const message: Record<string, unknown> = {};
  for (let i = 0; i < compact.length; i += 2) {
    const key: unknown = compact[i];
    const value: unknown = compact[i + 1];
    let name: string;
    let expanded: unknown = value;
    if (typeof key === 'number') {
      const known = MESSAGE_KEYS[key];
      if (known === undefined) return `has the unknown key number ${key}`;
      name = known;
      const v = expandValue(key, value, at);
      if ('problem' in v) return v.problem;
      expanded = v.value;
    } else if (typeof key === 'string') {
      name = key;
    } else {
      return `has the key ${JSON.stringify(key)}`;
    }
    if (Object.hasOwn(message, name)) return `has the key "${name}" twice`;
    // An own property even for `__proto__`, as `JSON.parse` makes it.
    Object.defineProperty(message, name, {
      value: expanded,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return message;
}

function expandValue(
  index: number,
  value: unknown,
  at: number,
): { readonly value: unknown } | { readonly problem: string } {
  if (index === TYPE) {
    const type = typeof value === 'number' ? MESSAGE_TYPES[value] : undefined;
    return type === undefined
      ? { problem: `has the type number ${JSON.stringify(value)}` }
      : { value: type };
  }
  if (index === CREATED_AT) {
    const ms = typeof value === 'number' && Number.isSafeInteger(value) ? at + value : Number.NaN;
    if (!Number.isFinite(new Date(ms).getTime())) {
      return { problem: `has the time offset ${JSON.stringify(value)}` };
    }
    return { value: new Date(ms).toISOString() };
  }
  if (index === USAGE) {
    const problem = { problem: 'has a usage that is not two numbers' };
    if (!Array.isArray(value) || value.length !== 2) return problem;
    const [promptTokens, completionTokens]: readonly unknown[] = value;
    if (typeof promptTokens !== 'number' || typeof completionTokens !== 'number') return problem;
    return { value: { promptTokens, completionTokens } };
  }
  return { value };
}
