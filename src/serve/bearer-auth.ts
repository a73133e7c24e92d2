import { hash, timingSafeEqual } from 'node:crypto';

import type { Principal } from './serve-options.js';

/** The principal of the default `authenticate`. */
export const DEFAULT_PRINCIPAL: Principal = Object.freeze({ id: 'default' });

const sha256 = (text: string): Buffer => hash('sha256', text, 'buffer');

/**
 * The default `authenticate`: `Authorization: Bearer <token>`, compared in constant time (both
 * sides hashed first, so neither the token's length nor its content shows in the timing).
 */
export function bearerAuthenticate(token: string): (request: Request) => Principal | null {
  const expected = sha256(token);
  return (request) => {
    const header = request.headers.get('authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const given = sha256(match?.[1] ?? '');
    return timingSafeEqual(given, expected) && match !== null ? DEFAULT_PRINCIPAL : null;
  };
}
