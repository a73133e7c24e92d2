import type { Principal } from '../agents/approvers.js';
import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import { sessionOwner } from '../checkpoint/session-owner.js';
import {
  hasOwnerLookup,
  type ListEntry,
  listQuery,
  OWNER_OF,
  pageOf,
  type SessionPage,
} from '../checkpoint/session-list.js';

/** Between a tenant and an id in an owner key: a character no principal's id or tenant holds. */
const TENANT_SEPARATOR = '\u001f';

/**
 * The owner a session of `principal`'s is recorded under: its id, within its tenant when it has
 * one (so two tenants' principals of the same id own different sessions).
 */
export function ownerKey(principal: Principal): string {
  return principal.tenant === undefined
    ? principal.id
    : `${principal.tenant}${TENANT_SEPARATOR}${principal.id}`;
}

/** The tenant of the session an owner key owns (undefined: no tenant). */
export function tenantOfOwner(owner: string): string | undefined {
  const at = owner.indexOf(TENANT_SEPARATOR);
  return at < 0 ? undefined : owner.slice(0, at);
}

/** A reason `principal` cannot be a principal of `serve()`, or undefined when it can. */
export function badPrincipal(principal: Principal): string | undefined {
  const { tenant, roles } = principal;
  if (principal.id.includes(TENANT_SEPARATOR)) return 'its `id` holds the character U+001F';
  if (tenant !== undefined && (typeof tenant !== 'string' || tenant === '')) {
    return '`tenant` must be a non-empty string';
  }
  if (tenant?.includes(TENANT_SEPARATOR) === true) return 'its `tenant` holds the character U+001F';
  if (roles !== undefined && (!Array.isArray(roles) || roles.some((r) => typeof r !== 'string'))) {
    return '`roles` must be a list of strings';
  }
  return undefined;
}

/**
 * Who owns which session. With a checkpoint store the owner is recorded with the session's first
 * step (`session(id, { owner })`) and read back through `store.list({ owner })`, so every process
 * sharing the store agrees; without one, sessions and owners live in this process.
 */
export class Tenancy {
  readonly #store: CheckpointStore | undefined;
  /** Without a store: every session this process created, with its owner. */
  readonly #owners = new Map<string, { owner: string; at: number; step: number }>();
  /** Owners found by listing a store without an owner lookup (see `ownerOf`). */
  readonly #listed = new Map<string, string | undefined>();

  /** The roles whose holders see every session of their tenant (`serve()`'s `operators`). */
  readonly operatorRoles: readonly string[];

  constructor(store: CheckpointStore | undefined, operatorRoles: readonly string[] = []) {
    this.#store = store;
    this.operatorRoles = operatorRoles;
  }

  get stored(): boolean {
    return this.#store !== undefined;
  }

  /** True when the session exists (for anyone): its id is taken. */
  async exists(id: string): Promise<boolean> {
    if (this.#store === undefined) return this.#owners.has(id);
    return (await this.#store.read(id, { from: 'start', upTo: 1 })).length > 0;
  }

  /**
   * True when `owner` owns the session. With a store this asks the store every time (no cache):
   * a session deleted and made again by another principal in another process changes hands. The
   * built-in stores answer the owner of the one session; another store is asked through `list()`.
   */
  async owns(owner: string, id: string): Promise<boolean> {
    const store = this.#store;
    if (store === undefined) return this.#owners.get(id)?.owner === owner;
    if (hasOwnerLookup(store)) return (await store[OWNER_OF](id)).owner === owner;
    let cursor: string | undefined;
    do {
      const page = await store.list({
        owner,
        limit: 1000,
        ...(cursor === undefined ? {} : { cursor }),
      });
      if (page.sessions.some((s) => s.id === id)) return true;
      cursor = page.cursor;
    } while (cursor !== undefined);
    return false;
  }

  /**
   * `owns(owner, id)`, and the holder of each lease key in `leases` (see `leaseHolder()`), read in
   * the same lookup when the store has one (with the session's last step). Without a store no
   * lease is held.
   */
  async ownsWithLeases(
    owner: string,
    id: string,
    leases: readonly string[],
  ): Promise<{ owns: boolean; holders: readonly (string | null)[]; step?: number }> {
    const store = this.#store;
    if (store !== undefined && hasOwnerLookup(store)) {
      const found = await store[OWNER_OF](id, leases);
      return { owns: found.owner === owner, holders: found.holders, step: found.step };
    }
    const owns = await this.owns(owner, id);
    if (!owns || store === undefined) return { owns, holders: leases.map(() => null) };
    return { owns, holders: await Promise.all(leases.map((key) => store.leaseHolder(key))) };
  }

  /**
   * The principal that owns the session, when the store (or this process) knows it. A store
   * without an owner lookup is listed until the session shows up (remembered afterwards: the
   * owner of a session never changes while it exists).
   */
  async ownerOf(id: string): Promise<string | undefined> {
    const store = this.#store;
    if (store === undefined) return this.#owners.get(id)?.owner;
    const listed = !hasOwnerLookup(store);
    if (listed && this.#listed.has(id)) return this.#listed.get(id);
    const owner = await sessionOwner(store, id);
    if (listed && owner !== undefined) {
      if (this.#listed.size > 10_000) this.#listed.clear();
      this.#listed.set(id, owner);
    }
    return owner;
  }

  /**
   * Without a store: takes the id for `owner`, false when it is taken already. The check and the
   * claim are one synchronous step, so of two requests creating one id at once only one wins.
   */
  claim(owner: string, id: string): boolean {
    if (this.#owners.has(id)) return false;
    this.#owners.set(id, { owner, at: Date.now(), step: 0 });
    return true;
  }

  /** Without a store: notes the session's last step (for `list()`). */
  touched(id: string, step: number): void {
    const entry = this.#owners.get(id);
    if (entry !== undefined && this.#store === undefined) {
      this.#owners.set(id, { ...entry, at: Date.now(), step });
    }
  }

  /** Forgets the session (it was deleted). */
  forget(id: string): void {
    this.#owners.delete(id);
  }

  /** Every session with its owner key and last commit time, from the store or this process. */
  async *all(): AsyncGenerator<{ id: string; owner: string | undefined; updatedAt: string }> {
    const store = this.#store;
    if (store === undefined) {
      for (const [id, e] of this.#owners) {
        yield { id, owner: e.owner, updatedAt: new Date(e.at).toISOString() };
      }
      return;
    }
    let cursor: string | undefined;
    do {
      const page = await store.list({ limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
      for (const s of page.sessions) yield { id: s.id, owner: s.owner, updatedAt: s.updatedAt };
      cursor = page.cursor;
    } while (cursor !== undefined);
  }

  /** A page of `owner`'s sessions, newest first. @throws ConfigError for a bad cursor or limit. */
  async list(
    owner: string,
    cursor: string | undefined,
    limit: number | undefined,
  ): Promise<SessionPage> {
    const options = {
      owner,
      ...(cursor === undefined ? {} : { cursor }),
      ...(limit === undefined ? {} : { limit }),
    };
    if (this.#store !== undefined) return this.#store.list(options);
    const entries: ListEntry[] = [];
    for (const [id, entry] of this.#owners) entries.push({ id, ...entry });
    return pageOf(entries, listQuery('serve', options));
  }
}
