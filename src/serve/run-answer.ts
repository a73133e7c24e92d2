import { ConfigError, SessionBusyError } from '../errors.js';
import { HttpError, errorResponse, sessionBusy } from './http-error.js';
import type { LiveRun } from '../engine/feed/live-run.js';

/** The JSON answer of a run once it has ended: its TaskResult, or the error it failed with. */
export async function jsonOfRun(live: LiveRun): Promise<Response> {
  await live.ended;
  const last = live.events.at(-1);
  if (last?.kind === 'result') return Response.json(last.result);
  const error = last?.kind === 'error' ? last.error : undefined;
  const message = last?.kind === 'error' ? last.message : 'the run ended without a result';
  if (error instanceof SessionBusyError) return errorResponse(sessionBusy(live.sessionId));
  if (error instanceof ConfigError && error.path === 'principal')
    return errorResponse(new HttpError(403, 'not_approver', message));
  if (error instanceof ConfigError)
    return errorResponse(new HttpError(400, 'bad_request', message));
  return errorResponse(new HttpError(500, 'run_failed', message));
}
