import { createHash } from 'node:crypto';

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

/**
 * What every internal lease key begins with (serve's stop requests, the workers' run outcomes):
 * U+001F, a control character. `serve()` refuses session ids holding one and a workflow's
 * `session()` refuses ids beginning with it, so no session shares a key with them — the stores
 * keep a session's lease under its id, in the same key space.
 */
export const INTERNAL_KEY_PREFIX = '\u001fbaton.';

/** The internal lease key of `kind` for `text` (a session or input id), hashed to a fixed size. */
export function internalKey(kind: string, text: string): string {
  const digest = createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 48);
  return `${INTERNAL_KEY_PREFIX}${kind}:${digest}`;
}

/**
 * Refuses, for a session, an id that names an internal key.
 * @throws ConfigError naming the prefix.
 */
export function checkNotInternal(where: string, sessionId: string): void {
  if (sessionId.startsWith(INTERNAL_KEY_PREFIX)) {
    throw new ConfigError(
      `${where}: the session id ${JSON.stringify(sessionId)} begins with U+001F "baton.", which ` +
        "is kept for Baton's internal keys. Use another id.",
      { path: 'sessionId' },
    );
  }
}
