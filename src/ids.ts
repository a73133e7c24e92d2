import { randomFillSync } from 'node:crypto';

// Random (version 4) UUIDs, as `crypto.randomUUID()` makes them, from the same source of random
// bytes, written as text a batch at a time. Node builds each of its UUIDs by concatenating about
// twenty small strings, which V8 keeps as a tree of pieces (about 490 bytes) until it flattens
// them; a slice of latin-1 text is one flat string (about 56 bytes) made in one step. Ids live as
// long as their messages, and several are made per model call.
const BATCH = 256;
const HEX = '0123456789abcdef';
const random = Buffer.alloc(16 * BATCH);
const text = Buffer.alloc(36 * BATCH);
let next = BATCH;

function refill(): void {
  randomFillSync(random);
  for (let u = 0; u < BATCH; u++) {
    const r = u * 16;
    // The version (4) and the variant (10xx) bits of RFC 9562.
    // Indexes within the buffer: `?? 0` is never taken.
    random[r + 6] = ((random[r + 6] ?? 0) & 0x0f) | 0x40;
    random[r + 8] = ((random[r + 8] ?? 0) & 0x3f) | 0x80;
    let t = u * 36;
    for (let b = 0; b < 16; b++) {
      if (b === 4 || b === 6 || b === 8 || b === 10) text[t++] = 0x2d; // '-'
      const byte = random[r + b] ?? 0;
      text[t++] = HEX.charCodeAt(byte >> 4);
      text[t++] = HEX.charCodeAt(byte & 0x0f);
    }
  }
  next = 0;
}

/** A random UUID (`xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx`), after `prefix`. */
export function newId(prefix = ''): string {
  if (next === BATCH) refill();
  const at = next++ * 36;
  const id = text.toString('latin1', at, at + 36);
  if (prefix === '') return id;
  // Concatenated, it would be kept as two pieces; reading a character flattens it.
  const prefixed = prefix + id;
  prefixed.charCodeAt(0);
  return prefixed;
}
