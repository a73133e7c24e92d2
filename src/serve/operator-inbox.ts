import type { Hono } from 'hono';

import { holdsRole } from '../agents/approvers.js';
import type { PendingRequest } from '../engine/state/session-state.js';
import { badRequest } from './http-error.js';
import { integerParam } from './input-shapes.js';
import type { RunHub } from './run-hub.js';
import type { ServeContext, ServeEnv } from './serve-context.js';
import type { Principal } from './serve-options.js';
import { tenantOfOwner } from './tenancy.js';

/** One open request in an operator's inbox. */
interface InboxEntry {
  readonly sessionId: string;
  readonly request: PendingRequest;
  /** When the session's last step (the pause) was committed. */
  readonly since: string;
}

const DEFAULT_LIMIT = 50;

/**
 * `GET /operator/requests?role=&cursor=&limit=`: the open requests of the caller's tenant that its
 * roles (or `role`, one of them) may answer, across sessions, oldest first, paged by a cursor
 * that names the last entry given (so requests that open or close between pages are neither
 * repeated nor skipped among those that stay).
 */
export function operatorRoutes(app: Hono<ServeEnv>, ctx: ServeContext): void {
  app.get('/operator/requests', async (c) => {
    const limit = integerParam('limit', c.req.query('limit'), 1000) ?? DEFAULT_LIMIT;
    if (limit === 0) throw badRequest('limit', 'must be an integer from 1 to 1000, got "0"');
    const role = c.req.query('role');
    const principal = c.get('principal');
    const roles = (principal.roles ?? []).filter((r) => role === undefined || r === role);
    const after = cursorOf(c.req.query('cursor'));
    const open = await openRequests(await ctx.hub(principal), principal, roles);
    const page = open.filter((e) => after === undefined || keyOf(e) > after).slice(0, limit + 1);
    const requests = page.slice(0, limit);
    const last = requests.at(-1);
    return c.json(
      page.length > limit && last !== undefined
        ? { requests, cursor: Buffer.from(keyOf(last)).toString('base64url') }
        : { requests },
    );
  });
}

/** The position of an entry in the inbox's order: oldest first, ties by session id. */
function keyOf(entry: InboxEntry): string {
  return `${entry.since} ${entry.sessionId}`;
}

function cursorOf(given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  const key = Buffer.from(given, 'base64url').toString();
  if (!/^\d{4}-\d\d-\d\dT[\d:.]+Z /.test(key)) {
    throw badRequest(
      'cursor',
      'is not a cursor of this list; pass the `cursor` of the page before',
    );
  }
  return key;
}

/** Every open request of `principal`'s tenant that waits for one of `roles`, oldest first. */
async function openRequests(
  hub: RunHub,
  principal: Principal,
  roles: readonly string[],
): Promise<InboxEntry[]> {
  if (roles.length === 0) return [];
  const found: InboxEntry[] = [];
  for await (const s of hub.tenancy.all()) {
    if (s.owner === undefined || tenantOfOwner(s.owner) !== principal.tenant) continue;
    const info = await hub.session(s.id).info();
    const request = info.pendingRequest;
    if (info.status !== 'awaiting_input' || request?.waitingFor === undefined) continue;
    if (!holdsRole({ id: principal.id, roles }, request.waitingFor)) continue;
    found.push({ sessionId: s.id, request, since: s.updatedAt });
  }
  return found.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}
