import { randomUUID } from 'node:crypto';

import { sessionNotFound, HttpError, sessionBusy } from './http-error.js';
import type { Task } from '../engine/runnable.js';
import type { LiveRun } from '../engine/feed/live-run.js';
import type { RunHub } from './run-hub.js';
import type { Opening } from './run-start.js';
import { isStopRequest, stopKey } from '../engine/feed/stop-signal.js';
import type { Principal } from './serve-options.js';
import { holdsRole } from '../agents/approvers.js';
import { ownerKey, tenantOfOwner } from './tenancy.js';

/** 404 unless `principal` owns the session: another tenant's session does not exist for it. */
export async function ownedBy(hub: RunHub, principal: Principal, id: string): Promise<void> {
  if (!(await hub.tenancy.owns(ownerKey(principal), id))) throw sessionNotFound(id);
}

/**
 * 404 unless `principal` may see the session: its owner; an operator (a principal holding one of
 * `serve()`'s `operators.roles`) of the session's tenant; or, of that tenant, a holder of a role
 * its pending request waits for (a supervisor asked to approve).
 */
export async function visibleTo(hub: RunHub, principal: Principal, id: string): Promise<void> {
  if (await hub.tenancy.owns(ownerKey(principal), id)) return;
  if (!(await reachesAsDesk(hub, principal, id, true))) throw sessionNotFound(id);
}

/**
 * True when `principal`, not the session's owner, belongs to its tenant and holds a role its
 * pending request waits for (or, with `operators`, an operator role).
 */
export async function reachesAsDesk(
  hub: RunHub,
  principal: Principal,
  id: string,
  operators: boolean,
): Promise<boolean> {
  const roles = principal.roles ?? [];
  if (roles.length === 0) return false;
  const owner = await hub.tenancy.ownerOf(id);
  if (owner === undefined || tenantOfOwner(owner) !== principal.tenant) return false;
  if (operators && holdsRole(principal, hub.tenancy.operatorRoles)) return true;
  const waitingFor = (await hub.session(id).info()).pendingRequest?.waitingFor;
  return waitingFor !== undefined && holdsRole(principal, waitingFor);
}

/**
 * The owner check of a request that starts a run, with what the start asks the store read in the
 * same lookup: whether the session's lease is held (it runs in a process sharing the store) and
 * whether a stop was asked of it while it was idle.
 */
export async function ownedForRun(
  hub: RunHub,
  owner: string,
  id: string,
): Promise<{ owns: boolean; leased: boolean; opening: Opening }> {
  const keys = hub.store === undefined ? [] : [id, stopKey(id)];
  const { owns, holders, step } = await hub.tenancy.ownsWithLeases(owner, id, keys);
  const opening = { stopAsked: isStopRequest(holders[1]), lastStep: step };
  return { owns, leased: (holders[0] ?? null) !== null, opening };
}

/**
 * Creates the session for `principal` (its first step records the owner, in the store when there
 * is one); 409 when the id is taken. A generated id when none is given.
 */
export async function createSession(
  hub: RunHub,
  principal: Principal,
  id: string = randomUUID(),
): Promise<string> {
  const taken = () =>
    new HttpError(
      409,
      'session_exists',
      `The session id "${id}" is taken; choose another, or leave id out for a generated one.`,
    );
  if (hub.store === undefined) {
    if (!hub.tenancy.claim(ownerKey(principal), id)) throw taken();
    return id;
  }
  if (await hub.tenancy.exists(id)) throw taken();
  // The first step records the owner in the store, so every process sharing it agrees.
  await hub.session(id, ownerKey(principal)).reset();
  if (!(await hub.tenancy.owns(ownerKey(principal), id))) throw taken();
  return id;
}

/**
 * The session for a protocol route that creates it on first use (`/chat`, `/ag-ui`); true when
 * `principal` owns it. `deciding`: the request decides a pending request, which a principal of
 * the desk (an operator, or a role the request waits for) may reach too: false then.
 */
export async function sessionOnFirstUse(
  hub: RunHub,
  principal: Principal,
  id: string,
  deciding = false,
): Promise<boolean> {
  if (await hub.tenancy.owns(ownerKey(principal), id)) return true;
  if (deciding && (await reachesAsDesk(hub, principal, id, true))) return false;
  if (await hub.tenancy.exists(id)) throw sessionNotFound(id);
  try {
    await createSession(hub, principal, id);
  } catch (error) {
    // Another request created it first: whose it is decides.
    if (!(error instanceof HttpError) || error.status !== 409) throw error;
    await ownedBy(hub, principal, id);
  }
  return true;
}

/**
 * A run of `task` started on a session of `principal`'s, the owner checked as the run takes its
 * lease (`RunHub.opensOwned` only); undefined when the session is not theirs or does not exist.
 */
export async function startIfOwned(
  hub: RunHub,
  principal: Principal,
  id: string,
  task: Task,
): Promise<LiveRun | undefined> {
  try {
    return await hub.start(id, task, { owner: ownerKey(principal), principal });
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) return undefined;
    throw error;
  }
}

/**
 * Starts a run of the input once the busy rule allows: `reject` answers 409 with `Retry-After`
 * while the session runs; `enqueue` and `interrupt` wait for it (stopping it first for `interrupt`).
 * `leased`: whether the session's lease was held when the request's owner check read it.
 */
export async function admit<T>(
  hub: RunHub,
  id: string,
  busy: 'reject' | 'enqueue' | 'interrupt',
  start: () => Promise<T>,
  leased?: boolean,
  turn?: Turn,
): Promise<T> {
  if (hub.dispatched) {
    // Queued for workers: inputs reach the queue in the order the requests came, which keeps them.
    try {
      await turn?.ready;
      if (await hub.running(id)) {
        if (busy === 'reject') throw sessionBusy(id);
        if (busy === 'interrupt') {
          await hub.stop(id);
          hub.interruptNext(id);
        }
      }
      return await start();
    } finally {
      turn?.done();
    }
  }
  if (busy === 'reject') {
    const running = leased === undefined ? await hub.running(id) : leased || hub.runningHere(id);
    if (running) throw sessionBusy(id);
    return start();
  }
  // Queued here in the order the requests came (not the order their bodies finished arriving):
  // each waits for those before it to be queued, and is queued before it lets the next one go.
  try {
    await turn?.ready;
    // `whenFree` takes the input's place in the session's line before its first await.
    const queued = hub.whenFree(id, busy, start);
    turn?.done();
    return await queued;
  } finally {
    turn?.done();
  }
}

/** A request's place among the inputs of one session: `ready` once those before it were queued. */
export interface Turn {
  readonly ready: Promise<void>;
  done(): void;
}

/** Hands out turns per session in the order requests arrive (taken before any await). */
export class Arrivals {
  readonly #last = new Map<string, Promise<void>>();

  take(id: string): Turn {
    const before = this.#last.get(id) ?? Promise.resolve();
    let done: () => void = () => {};
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.#last.set(id, mine);
    void mine.then(() => {
      if (this.#last.get(id) === mine) this.#last.delete(id);
    });
    return { ready: before, done };
  }
}
