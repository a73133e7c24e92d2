import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Why a request is refused, or that it may go on. */
export type GuardVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly status: 401 | 403; readonly reason: string };

/** The header a page's `fetch` may carry the token in (EventSource uses `?token=`). */
export const TOKEN_HEADER = 'x-baton-token';

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Decides whether the devtools server answers a request. The server listens on 127.0.0.1 only;
 * on top of that:
 * - the `Host` must be `127.0.0.1:<port>` or `localhost:<port>` (a DNS-rebinding page has another
 *   host name) — else 403;
 * - an `Origin`, when the browser sends one, must be the page's own (`http://<Host>`) — else 403,
 *   so another site open in the same browser cannot drive a session;
 * - the token printed at start must come as `?token=` or in the `x-baton-token` header — else 401.
 */
export function checkRequest(
  request: { readonly url?: string | undefined; readonly headers: IncomingHttpHeaders },
  options: { readonly token: string; readonly port: number },
): GuardVerdict {
  const host = request.headers.host ?? '';
  if (host !== `127.0.0.1:${options.port}` && host !== `localhost:${options.port}`) {
    return { ok: false, status: 403, reason: `Host "${host}" is not this server.` };
  }
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`) {
    return { ok: false, status: 403, reason: `Origin "${origin}" is not this page's origin.` };
  }
  const url = new URL(request.url ?? '/', `http://${host}`);
  const header = request.headers[TOKEN_HEADER];
  const given = url.searchParams.get('token') ?? (typeof header === 'string' ? header : '');
  if (given === '' || !sameToken(given, options.token)) {
    return {
      ok: false,
      status: 401,
      reason: 'A valid token is required: open the URL that "baton dev" printed.',
    };
  }
  return { ok: true };
}
