import { ConfigError } from '../errors.js';

/** A value as an error message shows it: `NaN` and `Infinity` stay readable, strings are quoted. */
export function showValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint' || value === undefined)
    return String(value);
  if (typeof value === 'function') return 'a function';
  return JSON.stringify(value) ?? String(value);
}

/** Throws a `ConfigError` naming `owner` and `field` unless `value` is a non-empty string. */
export function requireText(owner: string, field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new ConfigError(
      `${owner} needs \`${field}\` to be a non-empty string, got ${showValue(value)}.`,
      { path: field },
    );
  }
  return value;
}

/** Throws a `ConfigError` unless `value` is a non-empty array of non-empty strings. */
export function requireTextList(owner: string, field: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ConfigError(
      `${owner} needs \`${field}\` to be a non-empty array of names, got ${showValue(value)}.`,
      { path: field },
    );
  }
  return value.map((v, i) => requireText(owner, `${field}[${i}]`, v));
}

/** Throws a `ConfigError` unless `value` is an integer >= 0. */
export function requireCount(owner: string, field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new ConfigError(
      `${owner} needs \`${field}\` to be a non-negative integer, got ${showValue(value)}.`,
      { path: field },
    );
  }
  return value;
}
