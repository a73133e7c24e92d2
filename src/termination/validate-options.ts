import { ConfigError } from '../errors.js';

/** Throws a `ConfigError` naming `owner` and `field` unless `value` is a non-empty string. */
export function requireText(owner: string, field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new ConfigError(
      `${owner} needs \`${field}\` to be a non-empty string, got ${JSON.stringify(value)}.`,
      { path: field },
    );
  }
  return value;
}

/** Throws a `ConfigError` unless `value` is a non-empty array of non-empty strings. */
export function requireTextList(owner: string, field: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ConfigError(
      `${owner} needs \`${field}\` to be a non-empty array of names, got ${JSON.stringify(value)}.`,
      { path: field },
    );
  }
  return value.map((v, i) => requireText(owner, `${field}[${i}]`, v));
}

/** Throws a `ConfigError` unless `value` is an integer >= 0. */
export function requireCount(owner: string, field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new ConfigError(
      `${owner} needs \`${field}\` to be a non-negative integer, got ${JSON.stringify(value)}.`,
      { path: field },
    );
  }
  return value;
}
