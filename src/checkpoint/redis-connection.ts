import type { Redis } from 'ioredis';

import { ConfigError, StoreUnavailableError } from '../errors.js';
import { causeText, hasLoneSurrogate } from './store-helpers.js';

// How a RedisCheckpointStore connects, checks what it sends and words a failure.

const STORE = 'RedisCheckpointStore';

/** Connects to `url` (`target` names it in errors), loading `ioredis` on first use. */
export async function openRedisClient(url: string, target: string): Promise<Redis> {
  let ioredis: { Redis: typeof Redis };
  try {
    ioredis = await import('ioredis');
  } catch (error) {
    throw new ConfigError(
      'RedisCheckpointStore needs the `ioredis` package, which is not installed. Run ' +
        '`npm install ioredis`.',
      { cause: error },
    );
  }
  const client = new ioredis.Redis(url, {
    lazyConnect: true,
    connectTimeout: 10_000,
    maxRetriesPerRequest: 3,
  });
  // ioredis reports why a connection failed only as an 'error' event (and logs it when nobody
  // listens); connect() itself rejects with "Connection is closed."
  let lastError: unknown;
  client.on('error', (error: unknown) => {
    lastError = error;
  });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw redisFailure(target, 'connect', lastError ?? error);
  }
  return client;
}

/** The error for a failed `action`: `StoreUnavailableError` when the server is out of reach. */
export function redisFailure(target: string, action: string, cause: unknown): Error {
  const detail = causeText(cause);
  const unreachable =
    /ECONN|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|closed|max retries|NOAUTH|WRONGPASS/i;
  if (unreachable.test(detail)) {
    const message =
      `RedisCheckpointStore cannot connect to Redis at ${target}: ${detail}. Check that ` +
      'the server is running and reachable there, and the URL and password.';
    return new StoreUnavailableError(STORE, target, message, { cause });
  }
  const message =
    `RedisCheckpointStore cannot ${action} on Redis at ${target}: ${detail}. Check ` +
    'that no other program writes keys under this keyPrefix.';
  return new Error(message, { cause });
}

/** Rejects strings UTF-8 cannot encode (lone surrogates), which would merge distinct ids. */
export function checkText(what: string, value: string): string {
  if (typeof value !== 'string' || hasLoneSurrogate(value)) {
    throw new ConfigError(
      `RedisCheckpointStore: the ${what} ${JSON.stringify(value)} is not a string of ` +
        'well-formed text (a lone UTF-16 surrogate?). Use another one.',
      { path: what === 'session id' ? 'sessionId' : what },
    );
  }
  return value;
}
