import type { Principal } from '../agents/approvers.js';
import { ConfigError } from '../errors.js';
import { checkDispatcher, type Dispatcher } from '../workers/dispatcher.js';
import { type BudgetsOptions, checkBudgets } from '../workers/tenant-budget.js';
import { isServedWorkflow, type ServedWorkflow } from '../engine/session/served-workflow.js';

export { isServedWorkflow, type ServedWorkflow };

export type { Principal } from '../agents/approvers.js';

/** What `serve()` serves: a built workflow or team, or one per principal. */
export type Servable =
  ServedWorkflow | ((principal: Principal) => ServedWorkflow | Promise<ServedWorkflow>);

/** Options of `serve()`. */
export interface ServeOptions {
  /**
   * Who sends `request`, or `null` to answer 401. Runs on every request but `/healthz`, CORS
   * preflights and the page. @default `Authorization: Bearer <token>` checked against `token`
   */
  authenticate?: (request: Request) => Principal | null | Promise<Principal | null>;
  /** The token of the default `authenticate`; its principal's id is `"default"`. */
  token?: string;
  /** Origins allowed to call from a browser page. @default none: no cross-origin access */
  cors?: { origins: string[] };
  /** The largest request body in bytes; more answers 413. @default 1_000_000 */
  maxBodyBytes?: number;
  /**
   * Input while the session runs: `"reject"` answers 409 with `Retry-After`; `"interrupt"` stops
   * the running run (as `session.stop()` does) and runs the input when it has ended; `"enqueue"`
   * waits for the running run to end, then runs the input (inputs in the order received).
   * @default "reject"; "enqueue" with a dispatcher
   */
  busy?: 'reject' | 'enqueue' | 'interrupt';
  /**
   * Queue runs for workers (`startWorker()`, `baton worker`) instead of running them in this
   * process. Needs a store every machine shares. @default none: runs run here
   */
  dispatcher?: Dispatcher;
  /**
   * The path the routes sit under, e.g. `"/api"` for a Next.js catch-all route handler at
   * `app/api/[...baton]/route.ts` (then `/api/sessions`, `/api/chat`, ...). @default "" (the root)
   */
  basePath?: string;
  /**
   * The people of the desk: principals holding one of `roles` see and stream every session of
   * their own tenant through the session routes (other tenants' sessions stay 404). A request
   * that waits for a role (a tool's `approvers`) is seen by that role's holders in its tenant
   * whether or not it is listed here. @default none: each session is seen by its owner only
   */
  operators?: { roles?: readonly string[] };
  /**
   * HTML served at `GET /` without authentication (e.g. a chat page that asks for the token).
   * @internal what `baton serve --ui` uses; not part of the public API.
   */
  page?: string;
  /**
   * Budgets in money across sessions: `perTenantPerDayUsd`, a tenant's daily cap (see
   * `BudgetsOptions`). With a dispatcher, give the workers the same `budgets`. @default none
   */
  budgets?: BudgetsOptions;
}

/** The Fetch API handler `serve()` returns. */
export interface ServeHandler {
  /** Answers one request (Node, Next.js route handlers, Hono, Bun, Deno). */
  fetch(request: Request): Promise<Response>;
  /** Stops following streams and waits for the runs this handler started to end. */
  close(): Promise<void>;
}

/** The options once checked, with their defaults. */
export interface CheckedOptions {
  readonly authenticate: (request: Request) => Principal | null | Promise<Principal | null>;
  readonly origins: ReadonlySet<string>;
  readonly maxBodyBytes: number;
  readonly busy: 'reject' | 'enqueue' | 'interrupt';
  readonly page: string | undefined;
  readonly basePath: string;
  readonly dispatcher: Dispatcher | undefined;
  readonly perTenantPerDayUsd: number | undefined;
  readonly operatorRoles: readonly string[];
}

export const DEFAULT_MAX_BODY_BYTES = 1_000_000;

/**
 * Checks `serve()`'s options; `bearer` makes the default authenticate from a token.
 * @throws ConfigError naming the option.
 */
export function checkOptions(
  options: ServeOptions,
  bearer: (token: string) => CheckedOptions['authenticate'],
): CheckedOptions {
  const { authenticate, token, cors, maxBodyBytes = DEFAULT_MAX_BODY_BYTES } = options ?? {};
  const dispatcher =
    options?.dispatcher === undefined ? undefined : checkDispatcher(options.dispatcher, 'serve()');
  const busy = options?.busy ?? (dispatcher === undefined ? 'reject' : 'enqueue');
  if (authenticate !== undefined && typeof authenticate !== 'function') {
    throw new ConfigError('serve(): `authenticate` must be a function (request) => principal.', {
      path: 'authenticate',
    });
  }
  if (token !== undefined && (typeof token !== 'string' || token.length === 0)) {
    throw new ConfigError('serve(): `token` must be a non-empty string.', { path: 'token' });
  }
  const authenticated = authenticate ?? (token === undefined ? undefined : bearer(token));
  if (authenticated === undefined) {
    throw new ConfigError(
      'serve(): every route but /healthz needs a principal: give `token` (clients send ' +
        '`Authorization: Bearer <token>`) or `authenticate`.',
      { path: 'token' },
    );
  }
  const origins = cors?.origins ?? [];
  if (!Array.isArray(origins) || origins.some((o) => typeof o !== 'string')) {
    throw new ConfigError(
      'serve(): `cors.origins` must be a list of origins, e.g. ["https://desk.example"].',
      {
        path: 'cors.origins',
      },
    );
  }
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new ConfigError(
      `serve(): \`maxBodyBytes\` must be a positive integer, got ${JSON.stringify(maxBodyBytes)}.`,
      { path: 'maxBodyBytes' },
    );
  }
  if (busy !== 'reject' && busy !== 'enqueue' && busy !== 'interrupt') {
    throw new ConfigError(
      `serve(): \`busy\` must be "reject", "enqueue" or "interrupt", got ${JSON.stringify(busy)}.`,
      { path: 'busy' },
    );
  }
  const operatorRoles = options?.operators?.roles ?? [];
  if (
    (options?.operators !== undefined && typeof options.operators !== 'object') ||
    !Array.isArray(operatorRoles) ||
    operatorRoles.some((r) => typeof r !== 'string' || r === '')
  ) {
    throw new ConfigError(
      'serve(): `operators.roles` must be a list of roles, e.g. { roles: ["supervisor"] }.',
      { path: 'operators.roles' },
    );
  }
  const basePath = options?.basePath ?? '';
  if (typeof basePath !== 'string' || !/^(\/[\w.~-]+)*$/.test(basePath)) {
    throw new ConfigError(
      `serve(): \`basePath\` must be a path like "/api" (no trailing slash), got ${JSON.stringify(basePath)}.`,
      { path: 'basePath' },
    );
  }
  return {
    basePath,
    authenticate: authenticated,
    origins: new Set(origins),
    maxBodyBytes,
    busy,
    page: options?.page,
    dispatcher,
    perTenantPerDayUsd: checkBudgets('serve()', options?.budgets),
    operatorRoles: [...operatorRoles],
  };
}
