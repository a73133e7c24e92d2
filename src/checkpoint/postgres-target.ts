import { ConfigError } from '../errors.js';
import { fieldOf, isRecord } from '../unknown-value.js';

// Where a PostgresCheckpointStore's server is, for its error messages: host, port and database,
// never a user name or password.

/** `host:port (database "name")` of a connection string, without user name or password. */
export function describeConnectionString(connectionString: string): string {
  if (connectionString.startsWith('/')) return `socket ${connectionString.split(' ')[0]}`;
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw new ConfigError(
      'PostgresCheckpointStore: `connectionString` is not a URL like ' +
        '"postgres://user@localhost:5432/app". Check its syntax (special characters in the ' +
        'password must be percent-encoded).',
      { path: 'connectionString' },
    );
  }
  const host = url.searchParams.get('host') ?? (url.hostname || 'localhost');
  const database = decodeURIComponent(url.pathname.slice(1));
  return `${host}:${url.port || '5432'}${database === '' ? '' : ` (database "${database}")`}`;
}

export function describePool(pool: object): string {
  const given = fieldOf(pool, 'options');
  const options = isRecord(given) ? given : {};
  if (typeof options.connectionString === 'string') {
    try {
      return describeConnectionString(options.connectionString);
    } catch {
      return "the given pool's server";
    }
  }
  const host = typeof options.host === 'string' ? options.host : 'localhost';
  const database = typeof options.database === 'string' ? ` (database "${options.database}")` : '';
  return `${host}:${typeof options.port === 'number' ? options.port : 5432}${database}`;
}
