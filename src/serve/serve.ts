import type { Hono } from 'hono';

import { ConfigError } from '../errors.js';
import { thrownText } from '../value-text.js';
import { bearerAuthenticate } from './bearer-auth.js';
import { HttpError } from './http-error.js';
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
import { Arrivals } from './session-access.js';
import { Tenancy } from './tenancy.js';
import { checkSharedStore, queueNameOf } from '../workers/dispatcher.js';
import { tenantDayLimits } from '../workers/tenant-budget.js';

/**
 * Serves a workflow's sessions over HTTP as a Fetch API handler: the plain JSON/SSE
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
      const tenancy = new Tenancy(runner.checkpointStore, checked.operatorRoles);
      const cap = checked.perTenantPerDayUsd;
      const limit =
        cap === undefined
          ? {}
          : { limit: tenantDayLimits(runner.checkpointStore, cap, (id) => tenancy.ownerOf(id)) };
      hub = new RunHub(runner, tenancy, { ...dispatch, ...limit });
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

  // The routes (and Hono) are loaded with the first request: an application that never serves
  // does not pay for them.
  let app: Promise<Hono<ServeEnv>> | undefined;
  return {
    async fetch(request) {
      app ??= import('./routes.js').then(({ routes }) => routes(ctx));
      return (await app).fetch(request);
    },
    async close() {
      await Promise.all([...hubs.values()].map((hub) => hub.close()));
    },
  };
}
