import type { Context } from 'hono';

import type { RunHub } from './run-hub.js';
import type { Arrivals } from './session-access.js';
import type { CheckedOptions, Principal } from './serve-options.js';

/** What the routes share: the options, and the hub of the caller's workflow. */
export interface ServeContext {
  readonly options: CheckedOptions;
  /** The hub of the workflow that serves `principal`. */
  hub(principal: Principal): Promise<RunHub>;
  /** The order in which inputs of each session arrived. */
  readonly arrivals: Arrivals;
}

/** Hono's variables of a request: who sends it. */
export interface ServeEnv {
  Variables: { principal: Principal };
}

export type ServeRequest = Context<ServeEnv>;
