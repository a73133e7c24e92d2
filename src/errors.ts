/**
 * A configuration that cannot work: a bad option, a bad topology, a workflow that does not match a
 * stored session. Thrown when the configuration is built or loaded; in the middle of a run only
 * when the run meets what the author's configuration forbids and no build could see (an agent's
 * handoff outside the topology, a classifier or resolver naming someone who is not a participant).
 *
 * @example
 * new TokenUsageTermination({}); // ConfigError: TokenUsageTermination needs at least one limit...
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** The path of the bad field (`conditions[1].maxMessages`), when one field is to blame. */
  readonly path: string | undefined;

  constructor(message: string, options?: { path?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.path = options?.path;
  }
}

/**
 * Thrown (as a rejected promise) by `check()` on a termination condition that has already fired.
 * Call `reset()` before checking it again.
 */
export class TerminatedError extends Error {
  override readonly name = 'TerminatedError';

  constructor() {
    super('Termination condition has already been reached');
  }
}

/**
 * A second `run()` of a session that is already running, in this process or, with a shared
 * checkpoint store, in another. Wait for the first run to finish, or run another session.
 */
export class SessionBusyError extends Error {
  override readonly name = 'SessionBusyError';
  readonly sessionId: string;
  /**
   * When another process holds the session's lease: the time by which that lease expires if its
   * holder does not renew it (it died, or stopped). `undefined` when no lease is involved.
   */
  readonly leaseExpiresBy: Date | undefined;

  constructor(
    sessionId: string,
    options?: { cause?: unknown; detail?: string; leaseExpiresBy?: Date },
  ) {
    const expires = options?.leaseExpiresBy;
    const detail =
      expires === undefined
        ? options?.detail
        : 'another process holds its lease; if that process died, the lease expires by ' +
          `${expires.toISOString()} and the session can run again then`;
    super(
      `Session "${sessionId}" is already running${detail ? ` (${detail})` : ''}. ` +
        'Wait for its current run to finish or abort it before running it again.',
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.sessionId = sessionId;
    this.leaseExpiresBy = expires;
  }
}

/**
 * A checkpoint store's server cannot be reached: the connection is refused, times out or drops,
 * or the credentials are refused. The fault is the environment's; the same call can succeed once
 * the server is back. Thrown by `PostgresCheckpointStore` and `RedisCheckpointStore`; a run whose
 * store is unreachable rejects with `CheckpointError`, with this error as its `cause`.
 *
 * @example
 * try { await store.read(id); } catch (e) { if (e instanceof StoreUnavailableError) retryLater(); }
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  /** The store's class: `'PostgresCheckpointStore'` or `'RedisCheckpointStore'`. */
  readonly store: string;
  /** Where the server was looked for, e.g. `127.0.0.1:5432 (database "app")`; never credentials. */
  readonly target: string;

  constructor(store: string, target: string, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.store = store;
    this.target = target;
  }
}

/**
 * A stored checkpoint that cannot be read (corrupt, truncated or edited by hand), or a step that
 * cannot be committed because the run lost its session's lease or its store. The store is left as
 * it was; nothing is started over.
 */
export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  readonly sessionId: string;
  readonly step: number;
  /** True when the step could not be committed (rather than a record read). */
  readonly writing: boolean;

  /**
   * `options.writing`: the step could not be committed (a lost lease, an unreachable store) rather
   * than read; the message then says how to go on.
   */
  constructor(
    sessionId: string,
    step: number,
    detail: string,
    options?: { cause?: unknown; writing?: boolean },
  ) {
    super(
      options?.writing === true
        ? `Session "${sessionId}" stopped before step ${step}: ${detail}. Nothing after step ` +
            `${step - 1} was committed; run the session again once the store is reachable (it ` +
            'continues from its last committed step).'
        : `Checkpoint of session "${sessionId}" at step ${step} cannot be read: ${detail}. ` +
            'Restore the store from a backup or fork the session from an earlier step.',
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.sessionId = sessionId;
    this.step = step;
    this.writing = options?.writing === true;
  }
}
