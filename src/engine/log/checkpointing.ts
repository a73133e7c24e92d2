import type { CheckpointStore } from '../../checkpoint/checkpoint-store.js';
import { ConfigError } from '../../errors.js';
import type { CheckpointOptions } from './checkpoint-link.js';

/** Idle sessions a workflow with a checkpoint store keeps in memory by default. */
export const DEFAULT_SESSION_CACHE_SIZE = 1000;

/** Where a runner keeps its sessions' step logs, and how many idle sessions it keeps in memory. */
export interface Checkpointing extends CheckpointOptions {
  readonly store: CheckpointStore;
}

/** The checkpointing options a team takes (`RoundRobinGroupChat`, `SelectorGroupChat`, `Swarm`). */
export interface TeamCheckpointOptions {
  /**
   * Commits every step of every session here, so any process with the same team can resume any
   * session (`team.session(id)`), list its `checkpoints()` and fork it. @default none (memory only)
   */
  checkpointStore?: CheckpointStore;
  /**
   * With `checkpointStore`: idle sessions kept in memory; the least recently used others are
   * reloaded from the store when used. @default 1000
   */
  sessionCacheSize?: number;
}

const STORE_METHODS = ['append', 'read', 'acquireLease', 'releaseLease', 'leaseHolder'] as const;

/**
 * Checks a store and its options where `owner` (e.g. `withCheckpointing()`) receives them.
 * @throws ConfigError naming the bad option.
 */
export function toCheckpointing(
  owner: string,
  store: CheckpointStore,
  options: CheckpointOptions = {},
): Checkpointing {
  if (
    store === null ||
    typeof store !== 'object' ||
    STORE_METHODS.some((m) => typeof store[m] !== 'function')
  ) {
    throw new ConfigError(
      `${owner} needs a CheckpointStore, e.g. new FileCheckpointStore(".baton").`,
      { path: 'checkpointStore' },
    );
  }
  const every = options.snapshotEvery ?? 0;
  if (!Number.isInteger(every) || every < 0) {
    throw new ConfigError(`${owner}: snapshotEvery must be an integer >= 0, got ${every}.`, {
      path: 'snapshotEvery',
    });
  }
  const size = options.sessionCacheSize ?? DEFAULT_SESSION_CACHE_SIZE;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) {
    throw new ConfigError(
      `${owner}: sessionCacheSize must be an integer >= 0, got ${JSON.stringify(size)}. ` +
        `Leave it out for the default of ${DEFAULT_SESSION_CACHE_SIZE}.`,
      { path: 'sessionCacheSize' },
    );
  }
  return {
    store,
    snapshotEvery: every,
    sessionCacheSize: size,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  };
}

/** A team's checkpointing, or undefined when it has no `checkpointStore`. */
export function teamCheckpointing(
  team: string,
  options: TeamCheckpointOptions,
): Checkpointing | undefined {
  if (options.checkpointStore === undefined) {
    if (options.sessionCacheSize !== undefined) {
      throw new ConfigError(
        `${team}: sessionCacheSize needs a checkpointStore (without one, sessions stay in memory ` +
          'until session.dispose()). Add checkpointStore or leave sessionCacheSize out.',
        { path: 'sessionCacheSize' },
      );
    }
    return undefined;
  }
  return toCheckpointing(`${team}`, options.checkpointStore, {
    ...(options.sessionCacheSize === undefined
      ? {}
      : { sessionCacheSize: options.sessionCacheSize }),
  });
}
