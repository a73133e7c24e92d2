import { randomUUID } from 'node:crypto';

/**
 * `crypto.randomUUID()`, flattened. Node builds the UUID by concatenating about twenty small
 * strings, and V8 keeps such a string as a tree of pieces (about 490 bytes); reading one character
 * makes V8 flatten it in place (about 70 bytes). Ids live as long as their messages, so in a held
 * session the difference is most of its memory overhead.
 */
export function newId(prefix = ''): string {
  const id = prefix + randomUUID();
  id.charCodeAt(0);
  return id;
}
