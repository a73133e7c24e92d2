import { Hono } from 'hono';

import { ConfigError, SessionBusyError } from '../errors.js';
import { redactSecrets } from '../redact.js';
import { thrownText } from '../value-text.js';
import { agUiRoute } from './ag-ui-route.js';
import { bearerAuthenticate } from './bearer-auth.js';
import { chatRoutes } from './chat-route.js';
import { corsMiddleware } from './cors.js';
import { errorResponse, HttpError, sessionBusy } from './http-error.js';
import { RunHub } from './run-hub.js';
import type { ServeContext, ServeEnv } from './serve-context.js';
import {
  checkOptions,
  isServedWorkflow,
  type Principal,
  type Servable,
  type ServedWorkflow,
  type ServeHandler,
  type ServeOptions,
} from './serve-options.js';
import { sessionRoutes } from './session-routes.js';
import { Arrivals } from './session-access.js';
import { Tenancy } from './tenancy.js';
import { checkSharedStore, queueNameOf } from '../workers/dispatcher.js';

/** Every route and the methods it answers; another method answers 405. */
const ROUTES: readonly [path: string, methods: string][] = [
  ['/sessions', 'GET, POST'],
  ['/sessions/:id', 'GET, DELETE'],
  ['/sessions/:id/messages', 'GET'],
  ['/sessions/:id/runs', 'POST'],
  ['/sessions/:id/stream', 'GET'],
  ['/sessions/:id/stop', 'POST'],
  ['/chat', 'POST'],
  ['/chat/:id/stream', 'GET'],
  ['/ag-ui', 'POST'],
  ['/healthz', 'GET'],
];

const UNAUTHORIZED = new HttpError(401, 'unauthorized', 'Send `Authorization: Bearer <token>`.', {
  'www-authenticate': 'Bearer',
});

/**
 * Serves a workflow's sessions over HTTP (API.md §15) as a Fetch API handler: the plain JSON/SSE
 * routes, the AI SDK UI message stream (`/chat`) and AG-UI (`/ag-ui`), all from one event source —
 * the session's step log, then the live run — with principals, tenants, CORS and body limits.
 * @throws ConfigError for bad options.
 */
export function serve(workflow: Servable, options: ServeOptions): ServeHandler {
  const checked = checkOptions(options, bearerAuthenticate);
  if (!isServedWorkflow(workflow) && typeof workflow !== 'function') {
    throw new ConfigError('serve(): pass a built workflow or team, or (principal) => workflow.', {
      path: 'workflow',
    });
  }
  const dispatcher = checked.dispatcher;
  if (dispatcher !== undefined && isServedWorkflow(workflow)) {
    checkSharedStore(workflow.checkpointStore, 'serve()');
  }
  const hubs = new Map<ServedWorkflow, RunHub>();
  const hubOf = (runner: ServedWorkflow): RunHub => {
    let hub = hubs.get(runner);
    if (hub === undefined) {
      if (dispatcher !== undefined) {
        try {
          checkSharedStore(runner.checkpointStore, 'serve()');
        } catch (error) {
          // The server's own mistake, not the request's: 500.
          throw new HttpError(500, 'internal', thrownText(error));
        }
      }
      const dispatch =
        dispatcher === undefined ? {} : { dispatch: { dispatcher, queue: queueNameOf(runner) } };
      hub = new RunHub(runner, new Tenancy(runner.checkpointStore), dispatch);
      hubs.set(runner, hub);
    }
    return hub;
  };
  const ctx: ServeContext = {
    options: checked,
    arrivals: new Arrivals(),
    async hub(principal: Principal) {
      if (isServedWorkflow(workflow)) return hubOf(workflow);
      const runner = await workflow(principal);
      if (!isServedWorkflow(runner)) {
        // The server's own mistake, not the request's: 500.
        throw new HttpError(
          500,
          'internal',
          'serve(): the (principal) => workflow function returned no workflow.',
        );
      }
      return hubOf(runner);
    },
  };

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
    c.set('principal', principal);
    await next();
  });
  sessionRoutes(app, ctx);
  chatRoutes(app, ctx);
  agUiRoute(app, ctx);
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

  return {
    fetch: async (request) => app.fetch(request),
    async close() {
      await Promise.all([...hubs.values()].map((hub) => hub.close()));
    },
  };
}

/** An error as the answer it makes: ours as they are, a bad option 400, busy 409, else 500. */
function asHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof SessionBusyError) return sessionBusy(error.sessionId);
  const message = redactSecrets(thrownText(error));
  if (error instanceof ConfigError) {
    const path = error.path;
    return new HttpError(400, 'bad_request', path === undefined ? message : `${path}: ${message}`);
  }
  return new HttpError(500, 'internal', message);
}
