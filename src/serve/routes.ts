import { Hono } from 'hono';

import { ConfigError, SessionBusyError } from '../errors.js';
import { redactSecrets } from '../redact.js';
import { thrownText } from '../value-text.js';
import { agUiRoute } from './ag-ui-route.js';
import { chatRoutes } from './chat-route.js';
import { corsMiddleware } from './cors.js';
import { errorResponse, HttpError, sessionBusy } from './http-error.js';
import type { ServeContext, ServeEnv } from './serve-context.js';
import { operatorRoutes } from './operator-inbox.js';
import { sessionRoutes } from './session-routes.js';
import { badPrincipal } from './tenancy.js';

// The HTTP routes, loaded by serve() with its first request.

/** Every route and the methods it answers; another method answers 405. */
const ROUTES: readonly [path: string, methods: string][] = [
  ['/sessions', 'GET, POST'],
  ['/sessions/:id', 'GET, DELETE'],
  ['/sessions/:id/messages', 'GET'],
  ['/sessions/:id/runs', 'POST'],
  ['/sessions/:id/stream', 'GET'],
  ['/sessions/:id/stop', 'POST'],
  ['/chat', 'POST'],
  ['/chat/:id/messages', 'GET'],
  ['/chat/:id/stream', 'GET'],
  ['/ag-ui', 'POST'],
  ['/operator/requests', 'GET'],
  ['/healthz', 'GET'],
];

const UNAUTHORIZED = new HttpError(401, 'unauthorized', 'Send `Authorization: Bearer <token>`.', {
  'www-authenticate': 'Bearer',
});

/** The app that answers every route for `ctx`, made with Hono's class. */
export function routes(ctx: ServeContext): Hono<ServeEnv> {
  const checked = ctx.options;
  const app =
    checked.basePath === ''
      ? new Hono<ServeEnv>()
      : new Hono<ServeEnv>().basePath(checked.basePath);
  app.use('*', corsMiddleware(checked.origins));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  const page = checked.page;
  if (page !== undefined) app.get('/', (c) => c.html(page));
  app.use('*', async (c, next) => {
    const principal = await checked.authenticate(c.req.raw);
    if (principal === null || typeof principal?.id !== 'string' || principal.id === '') {
      throw UNAUTHORIZED;
    }
    const bad = badPrincipal(principal);
    if (bad !== undefined) {
      // The server's own mistake (its authenticate), not the request's: 500.
      throw new HttpError(
        500,
        'internal',
        `serve(): authenticate returned a principal whose ${bad}.`,
      );
    }
    c.set('principal', principal);
    await next();
  });
  sessionRoutes(app, ctx);
  chatRoutes(app, ctx);
  agUiRoute(app, ctx);
  operatorRoutes(app, ctx);
  for (const [path, methods] of ROUTES) {
    app.all(path, (c) => {
      throw new HttpError(
        405,
        'method_not_allowed',
        `${c.req.method} ${c.req.path}: use ${methods}.`,
        {
          allow: methods,
        },
      );
    });
  }
  app.notFound((c) =>
    errorResponse(new HttpError(404, 'not_found', `No route ${c.req.method} ${c.req.path}.`)),
  );
  app.onError((error) => errorResponse(asHttpError(error)));
  return app;
}

/** An error as the answer it makes: ours as they are, a bad option 400, busy 409, else 500. */
function asHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof SessionBusyError) return sessionBusy(error.sessionId);
  const message = redactSecrets(thrownText(error));
  if (error instanceof ConfigError) {
    const path = error.path;
    if (path === 'principal') return new HttpError(403, 'not_approver', message);
    return new HttpError(400, 'bad_request', path === undefined ? message : `${path}: ${message}`);
  }
  return new HttpError(500, 'internal', message);
}
