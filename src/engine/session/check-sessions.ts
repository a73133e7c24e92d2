import type { CheckpointStore } from '../../checkpoint/checkpoint-store.js';
import { ConfigError } from '../../errors.js';
import type { Runnable } from '../runnable.js';
import type { SessionState } from '../state/session-state.js';

/** One stored session as `checkSessions()` finds it. */
export interface SessionCheck {
  readonly sessionId: string;
  /** True when the workflow can take the session over as it is stored. */
  readonly ok: boolean;
  /** Why it cannot (the error loading it would throw), when `ok` is false. */
  readonly reason?: string;
}

/** A workflow that can read a stored session as it would take it over (every built workflow). */
interface StoredSessionReader {
  loadStored(store: CheckpointStore, id: string): Promise<SessionState>;
}

/** Sessions read at once: enough to hide a database's round trips, few enough to stay polite. */
const CONCURRENCY = 16;

/**
 * Checks every session of `store` against `workflow` before it ships: per session, whether this
 * build can take it over (a compatible change: an agent, tool, handoff or optional state field
 * added, instructions changed) or why not (its pending request names an agent or tool that is
 * gone, it stands in a state the machine no longer has, or its state fails the schema after
 * `migrate`). Nothing is written. Sessions come in the store's `list()` order.
 *
 * @example
 * const report = await checkSessions(workflow, new PostgresCheckpointStore({ connectionString }));
 * const failing = report.filter((s) => !s.ok); // [{ sessionId, ok: false, reason }]
 * @throws ConfigError when `workflow` is no built workflow or team, or `store` cannot list.
 */
export function checkSessions(workflow: Runnable, store: CheckpointStore): Promise<SessionCheck[]> {
  return checkStoredSessions(workflow, store);
}

/** `checkSessions()` for a workflow of any copy of Baton (a CLI's workflow module). */
export async function checkStoredSessions(
  workflow: unknown,
  store: CheckpointStore,
): Promise<SessionCheck[]> {
  const reader = isReader(workflow) ? workflow : undefined;
  if (reader === undefined) {
    throw new ConfigError(
      'checkSessions(workflow, store): workflow must be a built workflow or team (HandoffBuilder.build(), a team, GraphBuilder.build()).',
      { path: 'workflow' },
    );
  }
  if (typeof store?.list !== 'function') {
    throw new ConfigError(
      'checkSessions(workflow, store): store must be a checkpoint store that lists its sessions (list()).',
      { path: 'store' },
    );
  }
  const load = reader.loadStored.bind(reader);
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    for (const session of page.sessions) ids.push(session.id);
    cursor = page.cursor;
  } while (cursor !== undefined);

  const results = new Array<SessionCheck>(ids.length);
  let next = 0;
  const work = async () => {
    while (next < ids.length) {
      const at = next++;
      const sessionId = ids[at];
      if (sessionId !== undefined) results[at] = await checkOne(load, store, sessionId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, ids.length) }, work));
  return results;
}

function isReader(value: unknown): value is StoredSessionReader {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof Reflect.get(value, 'loadStored') === 'function'
  );
}

async function checkOne(
  load: StoredSessionReader['loadStored'],
  store: CheckpointStore,
  sessionId: string,
): Promise<SessionCheck> {
  try {
    await load(store, sessionId);
    return { sessionId, ok: true };
  } catch (error) {
    // A session that cannot be read is reported; a store that cannot be reached stops the check.
    // By name: a workflow module may have been built with another copy of Baton.
    if (
      error instanceof Error &&
      (error.name === 'ConfigError' || error.name === 'CheckpointError')
    ) {
      return { sessionId, ok: false, reason: error.message };
    }
    throw error;
  }
}
