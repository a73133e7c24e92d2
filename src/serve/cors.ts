import type { MiddlewareHandler } from 'hono';

const ALLOW_HEADERS = 'authorization, content-type, last-event-id';
const ALLOW_METHODS = 'GET, POST, DELETE, OPTIONS';
const EXPOSE_HEADERS = 'retry-after, www-authenticate, x-vercel-ai-ui-message-stream';

/**
 * CORS for the listed origins only: a preflight from one is answered 204 with the methods and the
 * headers the routes read (`authorization`, `content-type`, `last-event-id`); its requests get
 * `Access-Control-Allow-Origin`. An origin not listed gets no CORS headers at all, so a browser
 * keeps its page from reading anything.
 */
export function corsMiddleware(origins: ReadonlySet<string>): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header('origin');
    const allowed = origin !== undefined && origins.has(origin);
    if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined) {
      if (!allowed) return new Response(null, { status: 204, headers: { vary: 'Origin' } });
      return new Response(null, {
        status: 204,
        headers: {
          'access-control-allow-origin': origin,
          'access-control-allow-methods': ALLOW_METHODS,
          'access-control-allow-headers': ALLOW_HEADERS,
          'access-control-max-age': '600',
          vary: 'Origin',
        },
      });
    }
    await next();
    if (!allowed) return;
    const res = new Response(c.res.body, c.res);
    res.headers.set('access-control-allow-origin', origin);
    res.headers.set('access-control-expose-headers', EXPOSE_HEADERS);
    res.headers.append('vary', 'Origin');
    c.res = res;
  };
}
