import type { AppendOptions } from '../../checkpoint/session-list.js';
import type { CheckpointRecord, CheckpointStore } from '../../checkpoint/checkpoint-store.js';
import { checkNotInternal, checkSessionId } from '../../checkpoint/session-id.js';
import { type CheckpointInfo, listCheckpoints } from './checkpoint-info.js';
import { CheckpointError, ConfigError, SessionBusyError } from '../../errors.js';
import type { RunOpening } from './run-opening.js';
import { isMisuse, SessionLease } from './session-lease.js';
import {
  type ExpectedWorkflow,
  encodeSnapshot,
  encodeStep,
  type ReplayedLog,
  replayLog,
  type Writer,
} from './session-log.js';
import type { CommittedStep, SessionState } from '../state/session-state.js';
import type { StateCheck } from '../state/state-validator.js';
import type { StatePatchOp, StateProblem } from '../../agents/conversation-state.js';
import { eventOf } from '../state/step.js';
import { threadOf } from '../state/state-thread.js';
import type { WorkflowIdentity } from '../session/workflow-identity.js';

export { LEASE_TTL_MS } from './session-lease.js';

/** Options of checkpointing, as `withCheckpointing()` takes them. */
export interface CheckpointOptions {
  /**
   * Also write a full snapshot every this many steps (0: only where a log starts). Snapshots
   * shorten nothing that loading must read (the thread is in the log either way) and cost bytes,
   * so they are off by default. @default 0
   */
  snapshotEvery?: number;
  /**
   * Idle sessions kept in memory; the least recently used others are dropped and reloaded from the
   * store when used again. @default 1000
   */
  sessionCacheSize?: number;
  /** Milliseconds since the epoch, read to decide when a lease is due for renewal. @default Date.now */
  clock?: () => number;
}

/**
 * Connects one session to a checkpoint store: loads and catches up its state, commits each step
 * with compare-and-append, and holds the session's lease while a run is in progress.
 */
export class CheckpointLink {
  readonly #lease: SessionLease;
  readonly #store: CheckpointStore;
  readonly #sessionId: string;
  readonly #identity: WorkflowIdentity;
  readonly #migrate: ((old: unknown, from: number) => unknown) | undefined;
  readonly #snapshotEvery: number;
  readonly #check: (state: unknown) => StateCheck<SessionState>;
  readonly #fresh: () => SessionState;
  readonly #stateProblem: ((data: unknown) => StateProblem) | undefined;
  /** Recorded with the session's first record (see `SessionOptions.owner`). */
  #owner: string | undefined;
  /** The last step this process knows to be in the store (0: the log is empty). */
  #stored = 0;
  /**
   * The first 8 characters of that step's record (its checksum): the same step number in a log
   * deleted and made again since, by anyone, is another record (see `catchUp()`).
   */
  #seal = '';
  /** The workflow that wrote the last record this process knows (undefined: none yet). */
  #writer: Writer | undefined;
  /** A stored state's migration, held by the state this process has and not yet committed. */
  #migration: readonly StatePatchOp[] | undefined;

  constructor(
    store: CheckpointStore,
    sessionId: string,
    identity: WorkflowIdentity,
    options: CheckpointOptions & {
      /** Makes an older state version's conversation state fit (`StateOption.migrate`). */
      migrate?: ((old: unknown, from: number) => unknown) | undefined;
      check: (state: unknown) => StateCheck<SessionState>;
      /** The conversation state's check (see `ExpectedWorkflow.stateProblem`). */
      stateProblem?: ((data: unknown) => StateProblem) | undefined;
      /** A new session's state, for one deleted from the store since it was loaded. */
      fresh: () => SessionState;
    },
  ) {
    checkSessionId('session()', sessionId);
    checkNotInternal('session()', sessionId);
    this.#store = store;
    this.#sessionId = sessionId;
    this.#identity = identity;
    this.#migrate = options.migrate;
    this.#check = options.check;
    this.#stateProblem = options.stateProblem;
    this.#fresh = options.fresh;
    this.#snapshotEvery = options.snapshotEvery ?? 0;
    this.#lease = new SessionLease(store, sessionId, options.clock);
  }

  /** Records `owner` with the session's first record, unless an owner was given before. */
  claim(owner: string): void {
    this.#owner ??= owner;
  }

  /** The lease a run holds on this session. */
  get lease(): SessionLease {
    return this.#lease;
  }

  /**
   * Takes the lease for a run about to take `step`, only for the session's owner (see `OPEN_RUN`),
   * and tells `opening` what the lookup read; true once held (false without `opening`: nothing is
   * taken). Lets go of it when `opened` throws.
   */
  async open(step: number, opening: RunOpening | undefined): Promise<boolean> {
    if (opening === undefined) return false;
    const found = await this.#lease.acquireOwned(step, opening);
    try {
      await opening.opened(found);
    } catch (error) {
      await this.#lease.release();
      throw error;
    }
    return true;
  }

  /** The session's state from the store, or `fresh` when it has no log yet. */
  async load(fresh: SessionState): Promise<SessionState> {
    let records = await this.#store.read(this.#sessionId);
    if (records.length === 0) {
      // No snapshot to start from: a new session — or one being written right now by another
      // process (read again), or a log that lost the record that opened it (corrupt).
      const [first] = await this.#store.read(this.#sessionId, { from: 'start' });
      if (first === undefined) {
        this.#stored = 0;
        this.#seal = '';
        this.#writer = undefined;
        this.#migration = undefined;
        return fresh;
      }
      records = await this.#store.read(this.#sessionId);
      if (records.length === 0) {
        throw new CheckpointError(
          this.#sessionId,
          first.step,
          'the log has no snapshot to start from',
        );
      }
    }
    return this.#took(replayLog(this.#sessionId, records, this.#expected()), records);
  }

  /** Keeps what a replay of `records` found: where the log ends, who wrote it, its migration. */
  #took(log: ReplayedLog, records: readonly CheckpointRecord[]): SessionState {
    this.#stored = log.state.step;
    this.#seal = sealOf(records.at(-1));
    this.#writer = log.writer;
    this.#migration = log.migration;
    return log.state;
  }

  /**
   * `state` advanced by the steps other processes committed since; a new session when the store
   * no longer holds `state`'s step (another process deleted the session).
   */
  async catchUp(state: SessionState): Promise<SessionState> {
    if (this.#stored === 0) return this.load(state);
    // From the step this process knows, to see that it is still there.
    const [known, ...records] = await this.#store.read(this.#sessionId, {
      from: { after: state.step - 1 },
    });
    // Not there, or another record there (the log was deleted and made again, as long as before).
    if (known?.step !== state.step || sealOf(known) !== this.#seal) return this.load(this.#fresh());
    if (records.length === 0) return state;
    // A migrated state is not what the log holds: read the new steps from the log's own start.
    const writer = this.#writer;
    if (this.#migration !== undefined || writer === undefined) return this.load(this.#fresh());
    return this.#took(
      replayLog(this.#sessionId, records, this.#expected(), { state, writer }),
      records,
    );
  }

  /** Commits a step; another writer that got there first makes it a `SessionBusyError`. */
  async commit(step: CommittedStep): Promise<void> {
    const state = step.state;
    const snapshot =
      this.#stored === 0 || (this.#snapshotEvery > 0 && state.step % this.#snapshotEvery === 0);
    const identity = this.#identity;
    const taking = this.#writer?.fingerprint !== identity.fingerprint;
    const record = snapshot
      ? encodeSnapshot(
          this.#sessionId,
          state,
          eventOf(step.step),
          this.#self(),
          step.change.stopReason,
        )
      : encodeStep(this.#sessionId, this.#withMigration(step), taking ? this.#self() : undefined);
    await this.#append(record, () =>
      this.#store.append(this.#sessionId, record, this.#appendOptions()),
    );
  }

  /** `step` with the stored state's migration first in its state patch, when one is pending. */
  #withMigration(step: CommittedStep): CommittedStep {
    const migration = this.#migration;
    if (migration === undefined) return step;
    const { change } = step;
    // The migration is the application's update made before this step's messages were added.
    const at = threadOf(step.state).length - (change.append?.length ?? 0);
    return {
      ...step,
      change: {
        ...change,
        statePatch: [...migration, ...(change.statePatch ?? [])],
        stateCalls: [[at, migration.length], ...(change.stateCalls ?? [])],
      },
    };
  }

  /** This workflow as the writer of a record. */
  #self(): Writer & { readonly descriptor: WorkflowIdentity['descriptor'] } {
    const { fingerprint, stateVersion, descriptor } = this.#identity;
    return { fingerprint, version: stateVersion, descriptor };
  }

  /** Writes `state` whole as the next step (reset, loadState). */
  async replace(state: SessionState, event: string): Promise<void> {
    const record = encodeSnapshot(this.#sessionId, state, event, this.#self());
    await this.#append(record, () =>
      this.#store.append(this.#sessionId, record, this.#appendOptions()),
    );
  }

  /** Starts this session as a copy of `source` at `step` (time travel). */
  async fork(source: string, step: number): Promise<SessionState> {
    const records = await this.#store.read(source, { upTo: step });
    if (records.length === 0 || records.at(-1)?.step !== step) {
      throw new ConfigError(
        `Cannot fork from step ${step} of session "${source}": the store has no such step. ` +
          'List the steps with session.checkpoints().',
        { path: 'from.step' },
      );
    }
    const { state } = replayLog(source, records, this.#expected());
    const record = encodeSnapshot(this.#sessionId, state, `fork:${source}@${step}`, this.#self());
    if (!(await this.#store.append(this.#sessionId, record, this.#appendOptions()))) {
      throw new ConfigError(
        `Cannot fork into session "${this.#sessionId}": it already exists. Fork into a new session id.`,
        { path: 'id' },
      );
    }
    this.#stored = state.step;
    this.#seal = sealOf(record);
    this.#writer = this.#self();
    this.#migration = undefined;
    return state;
  }

  /** The step log. */
  async checkpoints(): Promise<CheckpointInfo[]> {
    return listCheckpoints(
      this.#sessionId,
      await this.#store.read(this.#sessionId, { from: 'start' }),
    );
  }

  /** The owner goes with the record that opens the log (stores ignore it on later ones). */
  #appendOptions(): AppendOptions | undefined {
    return this.#stored === 0 && this.#owner !== undefined ? { owner: this.#owner } : undefined;
  }

  #expected(): ExpectedWorkflow {
    const { fingerprint, descriptor, stateVersion, tools } = this.#identity;
    return {
      fingerprint,
      descriptor,
      stateVersion,
      tools,
      migrate: this.#migrate,
      check: this.#check,
      stateProblem: this.#stateProblem,
    };
  }

  async #append(record: CheckpointRecord, write: () => Promise<boolean>): Promise<void> {
    const step = record.step;
    // A run that lost its lease never commits over the process that took the session.
    await this.#lease.confirm(step);
    let appended: boolean;
    try {
      appended = await write();
    } catch (error) {
      if (isMisuse(error)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new CheckpointError(
        this.#sessionId,
        step,
        `its store cannot be reached to commit the step (${reason})`,
        { writing: true, cause: error },
      );
    }
    if (!appended) {
      throw new SessionBusyError(this.#sessionId, {
        detail: `another process committed step ${step} first`,
      });
    }
    this.#stored = step;
    this.#seal = sealOf(record);
    this.#writer = this.#self();
    this.#migration = undefined;
  }
}

/** The first 8 characters of a record: its checksum (see `encodeStep()`); '' for none. */
function sealOf(record: CheckpointRecord | undefined): string {
  return record?.data.slice(0, 8) ?? '';
}
