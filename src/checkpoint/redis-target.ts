import { ConfigError } from '../errors.js';
import { fieldOf, isRecord } from '../unknown-value.js';

// Where a RedisCheckpointStore's server is, for its error messages: host, port and database,
// never a user name or password.

/** `host:port` (and database) of a Redis URL, without user name or password. */
export function describeUrl(url: string): string {
  if (url.startsWith('/')) return `socket ${url}`;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed?.protocol !== 'redis:' && parsed?.protocol !== 'rediss:') {
    throw new ConfigError(
      'RedisCheckpointStore: `url` is not a URL like "redis://localhost:6379/0". Check its ' +
        'syntax (special characters in the password must be percent-encoded).',
      { path: 'url' },
    );
  }
  const database = parsed.pathname.length > 1 ? ` (database ${parsed.pathname.slice(1)})` : '';
  return `${parsed.hostname || 'localhost'}:${parsed.port || '6379'}${database}`;
}

export function describeClient(client: object): string {
  const given = fieldOf(client, 'options');
  const options = isRecord(given) ? given : {};
  if (typeof options.path === 'string' && options.path !== '') return `socket ${options.path}`;
  const host = typeof options.host === 'string' ? options.host : 'localhost';
  return `${host}:${typeof options.port === 'number' ? options.port : 6379}`;
}
