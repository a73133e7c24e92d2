import { createHash } from 'node:crypto';

import { hasLoneSurrogate } from './store-helpers.js';

// The file name stem of each session of a FileCheckpointStore. It must map ids one to one: two
// ids sharing a stem would share a log. Well-formed ids keep the names the store has always given
// them, the base64url of their UTF-8 (`s-…`); UTF-8 cannot carry a lone surrogate (it becomes
// U+FFFD, so 'a\uD800' and 'a\uDC00' would meet), so an id holding one is encoded per UTF-16 code
// unit instead (`u-…`, little-endian). Stems too long for a file name are a SHA-256 of the same
// bytes (`h-…`, `v-…`): such ids can be opened, not listed.

/** Longest encoded id kept readable; with a prefix and `.steps` it stays under 255 bytes. */
const MAX_ENCODED = 180;

/** The stem of the files and folders that hold `sessionId`'s log and lease. */
export function sessionStem(sessionId: string): string {
  const wellFormed = !hasLoneSurrogate(sessionId);
  const bytes = Buffer.from(sessionId, wellFormed ? 'utf8' : 'utf16le');
  const encoded = bytes.toString('base64url');
  if (encoded.length <= MAX_ENCODED) return `${wellFormed ? 's' : 'u'}-${encoded}`;
  return `${wellFormed ? 'h' : 'v'}-${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The session id of a readable stem (`s-…` or `u-…`), or `undefined` for a hashed or foreign one. */
export function sessionIdOfStem(stem: string): string | undefined {
  if (stem.startsWith('s-')) return Buffer.from(stem.slice(2), 'base64url').toString('utf8');
  if (stem.startsWith('u-')) return Buffer.from(stem.slice(2), 'base64url').toString('utf16le');
  return undefined;
}
