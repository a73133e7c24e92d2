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

  constructor(sessionId: string, options?: { cause?: unknown; detail?: string }) {
    super(
      `Session "${sessionId}" is already running${options?.detail ? ` (${options.detail})` : ''}. ` +
        'Wait for its current run to finish or abort it before running it again.',
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.sessionId = sessionId;
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
  }
}
