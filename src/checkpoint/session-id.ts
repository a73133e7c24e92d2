import { ConfigError } from '../errors.js';

/**
 * The longest session id every checkpoint store takes, in UTF-16 code units (`id.length`). It is
 * one rule for all stores, so a session can move between them; at most 1,024 bytes of UTF-8, it
 * fits a PostgreSQL index entry, a Redis key and (hashed when long) a file name with room to spare.
 */
export const MAX_SESSION_ID_LENGTH = 256;

/**
 * Refuses a session id no store keeps: not a string, or longer than `MAX_SESSION_ID_LENGTH`.
 * Every store calls it on every method, and a workflow with a store when `session(id)` is called.
 * @throws ConfigError naming the limit and the id's length.
 */
export function checkSessionId(where: string, sessionId: string): void {
  if (typeof sessionId !== 'string') {
    throw new ConfigError(`${where}: a session id must be a string, got ${typeof sessionId}.`, {
      path: 'sessionId',
    });
  }
  if (sessionId.length > MAX_SESSION_ID_LENGTH) {
    throw new ConfigError(
      `${where}: the session id "${sessionId.slice(0, 32)}…" is ${sessionId.length} characters ` +
        `long; checkpoint stores take ids of at most ${MAX_SESSION_ID_LENGTH} characters (UTF-16 ` +
        'code units). Use a shorter id, e.g. a hash of this one.',
      { path: 'sessionId' },
    );
  }
}
