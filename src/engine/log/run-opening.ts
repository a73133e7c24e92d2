import type { OwnedLease } from '../../checkpoint/session-list.js';
import type { RunOptions } from '../runnable.js';

/**
 * Internal, not part of the public API: a `RunOptions` key with which a run takes its session's lease only
 * when the session belongs to `owner`, reading in the same lookup (the store's `TAKE_OWNED`) the
 * session's last step and the holders of other lease keys. `serve()` starts a run with it: the
 * owner check, the busy check and a stop asked of the idle session cost no round trip of their own.
 * Only for a store that answers `TAKE_OWNED`.
 */
// `Symbol.for`: a workflow built by another copy of Baton (a module the CLI loads) sees it too.
export const OPEN_RUN = Symbol.for('baton.openRun');

/** What a run opened with `OPEN_RUN` checks, and whom it tells what it read. */
export interface RunOpening {
  /** The session's owner the run requires. */
  readonly owner: string;
  /** Other lease keys whose holders the lookup reads. */
  readonly leases: readonly string[];
  /** What the run fails with when the session is not `owner`'s or does not exist (nothing taken). */
  notOwned(): Error;
  /**
   * Told what the lookup read, once the lease is held and before the session is loaded or caught
   * up; the run waits for it, and fails with what it throws (letting go of the lease).
   */
  opened(found: OwnedLease): void | Promise<void>;
}

/** `RunOptions` with an opening. */
export type OpenedRun = RunOptions & { readonly [OPEN_RUN]?: RunOpening };

/** The opening `options` carry, if any (any `RunOptions` is an `OpenedRun` without one). */
export function openingOf(options: OpenedRun | undefined): RunOpening | undefined {
  return options?.[OPEN_RUN];
}
