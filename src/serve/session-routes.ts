import type { Hono } from 'hono';

import { type Cursor, parseCursor } from '../engine/feed/feed-cursor.js';
import { badRequest, HttpError, sessionBusy, sessionNotFound } from './http-error.js';
import { createBody, decisionsTask, integerParam, runsBody } from './input-shapes.js';
import { plainFrames } from './plain-events.js';
import { readJsonBody } from './request-body.js';
import {
  admit,
  createSession,
  ownedBy,
  ownedForRun,
  reachesAsDesk,
  visibleTo,
} from './session-access.js';
import type { RunHub } from './run-hub.js';
import type { Principal } from './serve-options.js';
import { ownerKey } from './tenancy.js';
import { liveFeed, openEvents } from '../engine/feed/log-feed.js';
import type { ServeContext, ServeEnv } from './serve-context.js';
import { sseResponse } from './sse-response.js';
import { jsonOfRun } from './run-answer.js';

/** The plain routes: sessions, their threads, runs, streams, stop and delete. */
export function sessionRoutes(app: Hono<ServeEnv>, ctx: ServeContext): void {
  const { options } = ctx;

  app.post('/sessions', async (c) => {
    const wanted = createBody(await readJsonBody(c.req.raw, options.maxBodyBytes));
    const principal = c.get('principal');
    const id = await createSession(await ctx.hub(principal), principal, wanted);
    return c.json({ id }, 201);
  });

  app.get('/sessions', async (c) => {
    const limit = integerParam('limit', c.req.query('limit'), 1000);
    const principal = c.get('principal');
    const hub = await ctx.hub(principal);
    const page = await hub.tenancy.list(ownerKey(principal), c.req.query('cursor'), limit);
    const sessions = await Promise.all(
      page.sessions.map(async ({ id, updatedAt }) => {
        const info = await hub.session(id).info();
        return { id, status: info.status, step: info.step, updatedAt };
      }),
    );
    return c.json(page.cursor === undefined ? { sessions } : { sessions, cursor: page.cursor });
  });

  app.get('/sessions/:id', async (c) => {
    const { hub, id } = await visible(ctx, c.get('principal'), c.req.param('id'));
    return c.json(await hub.session(id).info());
  });

  app.get('/sessions/:id/messages', async (c) => {
    const after = integerParam('after', c.req.query('after'));
    const { hub, id } = await visible(ctx, c.get('principal'), c.req.param('id'));
    if (after === undefined) return c.json({ messages: await hub.session(id).messages() });
    const views = await hub.views(id);
    return c.json({ messages: views.filter((v) => v.step > after).flatMap((v) => v.messages) });
  });

  app.post('/sessions/:id/runs', async (c) => {
    // The request's place among the session's inputs, taken before anything is awaited.
    const turn = ctx.arrivals.take(c.req.param('id'));
    let live;
    try {
      const body = runsBody(await readJsonBody(c.req.raw, options.maxBodyBytes));
      const principal = c.get('principal');
      const id = c.req.param('id');
      const hub = await ctx.hub(principal);
      const reject = options.busy === 'reject' && !hub.dispatched;
      // The run checks the owner as it takes its lease, reading there what its start needs (one
      // round trip for all). Decisions need the session's pending request first: the owner first.
      const opens = reject && hub.opensOwned && body.decisions === undefined;
      // Else with `reject` the owner check also reads the leases the busy check and the start need.
      const owner = ownerKey(principal);
      const checked = reject && !opens ? await ownedForRun(hub, owner, id) : undefined;
      // A decision may also come from a principal of the tenant its request waits for.
      const desk = () => body.decisions !== undefined && reachesAsDesk(hub, principal, id, true);
      let owns = checked?.owns ?? true;
      if (opens) live = await hub.start(id, body.input, { owner, principal });
      else if (checked === undefined) owns = await decidingOwner(hub, principal, id, desk);
      else if (!checked.owns && !(await desk())) throw sessionNotFound(id);
      const run = async () => {
        const task =
          body.decisions === undefined
            ? body.input
            : decisionsTask(
                body.decisions,
                (await hub.session(id).info()).pendingRequest,
                'body.decisions',
                { principal, owns },
              );
        return hub.start(id, task, { ...checked?.opening, principal });
      };
      live ??= await admit(hub, id, options.busy, run, checked?.leased, turn);
    } finally {
      turn.done();
    }
    if (!(c.req.header('accept') ?? '').includes('text/event-stream')) return jsonOfRun(live);
    const leave = new AbortController();
    return sseResponse(plainFrames(liveFeed(live, leave.signal)), leave);
  });

  app.get('/sessions/:id/stream', async (c) => {
    const header = c.req.header('last-event-id');
    let cursor: Cursor | undefined;
    if (header !== undefined && header !== '') {
      cursor = parseCursor(header);
      if (cursor === undefined)
        throw badRequest(
          'last-event-id',
          `must be a cursor <step>.<n> (or <step>.0.<k> for a chunk) as sent in id:, got ${JSON.stringify(header.slice(0, 40))}`,
        );
    }
    const { hub, id } = await visible(ctx, c.get('principal'), c.req.param('id'));
    const leave = new AbortController();
    const events = await openEvents(hub.feed, id, cursor, leave.signal);
    if (events === undefined) return c.body(null, 204);
    return sseResponse(plainFrames(events), leave);
  });

  app.post('/sessions/:id/stop', async (c) => {
    const { hub, id } = await owned(ctx, c.get('principal'), c.req.param('id'));
    await hub.stop(id);
    return c.json({}, 202);
  });

  app.delete('/sessions/:id', async (c) => {
    const { hub, id } = await owned(ctx, c.get('principal'), c.req.param('id'));
    if (await hub.running(id)) throw deleteWhileRunning(id);
    try {
      await hub.session(id).delete();
    } catch (error) {
      if (error instanceof Error && error.name === 'SessionBusyError') throw deleteWhileRunning(id);
      throw error;
    }
    hub.forget(id);
    return c.body(null, 204);
  });
}

async function owned(ctx: ServeContext, principal: Principal, id: string) {
  const hub = await ctx.hub(principal);
  await ownedBy(hub, principal, id);
  return { hub, id };
}

/** The session as its owner, an operator of its tenant, or an approver of its request sees it. */
async function visible(ctx: ServeContext, principal: Principal, id: string) {
  const hub = await ctx.hub(principal);
  await visibleTo(hub, principal, id);
  return { hub, id };
}

/**
 * Whether `principal` owns the session; else 404 unless `desk()` (it sees it from the desk).
 */
async function decidingOwner(
  hub: RunHub,
  principal: Principal,
  id: string,
  desk: () => false | Promise<boolean>,
): Promise<boolean> {
  if (await hub.tenancy.owns(ownerKey(principal), id)) return true;
  if (!(await desk())) throw sessionNotFound(id);
  return false;
}

function deleteWhileRunning(id: string): HttpError {
  const busy = sessionBusy(id);
  return new HttpError(
    409,
    busy.code,
    `Session "${id}" is running; delete it once the run has ended.`,
    busy.headers,
  );
}
