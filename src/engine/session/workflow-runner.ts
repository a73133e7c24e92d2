import { randomUUID } from 'node:crypto';

import type { AnyStateMachine } from 'xstate';

import type { CheckpointStore } from '../../checkpoint/checkpoint-store.js';
import { ConfigError, SessionBusyError } from '../../errors.js';
import type { AgentMessage } from '../../messages/message.js';
import { CheckpointLink } from '../log/checkpoint-link.js';
import { type Checkpointing, DEFAULT_SESSION_CACHE_SIZE } from '../log/checkpointing.js';
import { MachineDriver } from '../run/machine-driver.js';
import { type HandleHooks, SessionHandle } from './session-handle.js';
import { SessionLease } from '../log/session-lease.js';
import type { Orchestration } from '../orchestration.js';
import type { Runnable, RunOptions, Task, TaskResult } from '../runnable.js';
import { recordSession } from '../recording/record.js';
import { type SessionOrigin, SessionRuntime } from './session-runtime.js';
import { initialSessionState, type SessionState } from '../state/session-state.js';
import { StateValidator } from '../state/state-validator.js';
import { stateProblem } from '../../agents/conversation-state.js';
import { identityOf, type WorkflowIdentity } from './workflow-identity.js';
import { FeedHost, feedHostOf } from '../feed/feed-host.js';

/** The origin of every session kept in memory only (one object, not one per session). */
const IN_MEMORY: SessionOrigin = Object.freeze({});

/** The id of the session that `run()` on a workflow or team uses. */
export const DEFAULT_SESSION_ID = 'default';

import type { CheckpointedSession, SessionOptions } from './checkpointed-session.js';

export type { CheckpointedSession, SessionOptions };

/**
 * Runs a compiled orchestration: one object serves any number of independent sessions. Teams and
 * workflows extend it; none has a loop of its own.
 */
export class WorkflowRunner implements Runnable {
  readonly #orchestration: Orchestration;
  readonly #driver: MachineDriver;
  readonly #sessions = new Map<string, SessionRuntime>();
  readonly #checkpointing: Checkpointing | undefined;
  readonly #validator: StateValidator;
  readonly #identity: WorkflowIdentity;
  /** Idle sessions kept in memory when a store holds them all (`Infinity` without a store). */
  readonly #cacheSize: number;
  /** What the runs of this workflow's sessions report to their feeds (shared per store). */
  readonly #feed: FeedHost;
  /** What every handle of this runner reaches its session through (one object, not per handle). */
  readonly #hooks: HandleHooks = {
    runtime: (id) => this.#runtime(id, undefined),
    settle: () => this.#trim(),
    dispose: (id) => this.#dispose(id),
    delete: (id) => this.#delete(id),
    fresh: () => this.freshState(),
    parse: (state, id) => this.parseState(state, id),
    bounded: false,
    feed: () => this.#feed,
    record: async (id, session, options) =>
      recordSession(id, this.#orchestration, session, options, (o) => new WorkflowRunner(o)),
  };

  constructor(orchestration: Orchestration, checkpointing?: Checkpointing) {
    this.#orchestration = orchestration;
    this.#driver = new MachineDriver(orchestration.machine);
    this.#checkpointing = checkpointing;
    this.#validator = new StateValidator(
      this.#driver,
      orchestration.stopRule,
      orchestration.progressSchema,
      orchestration.state?.schema,
    );
    this.#identity = identityOf(orchestration);
    this.#cacheSize =
      checkpointing === undefined
        ? Number.POSITIVE_INFINITY
        : (checkpointing.sessionCacheSize ?? DEFAULT_SESSION_CACHE_SIZE);
    this.#hooks.bounded = checkpointing !== undefined;
    this.#feed =
      checkpointing === undefined ? new FeedHost(undefined) : feedHostOf(checkpointing.store);
  }

  /**
   * Where the runs of this workflow's sessions report what they do, and their feeds read.
   * @internal for serve() and the workers; not part of the public API.
   */
  get feedHost(): FeedHost {
    return this.#feed;
  }

  /**
   * Sessions held in memory right now (running ones included).
   * @internal for the CLI, the devtools and benchmarks; not part of the public API.
   */
  get sessionsInMemory(): number {
    return this.#sessions.size;
  }

  /** The checkpoint store sessions are kept in, if any (`serve()` reads step logs and owners there). */
  get checkpointStore(): CheckpointStore | undefined {
    return this.#checkpointing?.store;
  }

  /**
   * The orchestration it runs.
   * @internal for replays and routing evals; not part of the public API.
   */
  get orchestration(): Orchestration {
    return this.#orchestration;
  }

  /** The compiled XState machine this workflow runs. */
  get machine(): AnyStateMachine {
    return this.#orchestration.machine;
  }

  /**
   * A digest of what a stored session depends on: participants, the states of the compiled
   * machine, each agent's tools, the handoffs and routing, the conversation state's shape and
   * version (not instructions, models or descriptions). Recorded with each session's records; a
   * workflow of another fingerprint takes a stored session over when the change is compatible.
   */
  get fingerprint(): string {
    return this.#identity.fingerprint;
  }

  run(task?: Task, options?: RunOptions): Promise<TaskResult> {
    return this.session(DEFAULT_SESSION_ID).run(task, options);
  }

  runStream(task?: Task, options?: RunOptions): AsyncIterable<AgentMessage | TaskResult> {
    return this.session(DEFAULT_SESSION_ID).runStream(task, options);
  }

  reset(): Promise<void> {
    return this.session(DEFAULT_SESSION_ID).reset();
  }

  saveState(): Promise<unknown> {
    return this.session(DEFAULT_SESSION_ID).saveState();
  }

  loadState(state: unknown): Promise<void> {
    return this.session(DEFAULT_SESSION_ID).loadState(state);
  }

  /**
   * An independent conversation: a new generated id when `id` is omitted; with a checkpoint store,
   * the stored session of that id, loaded on first use. `options.from` forks a stored session.
   */
  session(id: string = randomUUID(), options: SessionOptions = {}): CheckpointedSession {
    if (typeof id !== 'string' || id.length === 0) {
      throw new ConfigError(
        `session(): the id must be a non-empty string, got ${JSON.stringify(id)}.`,
      );
    }
    const from = options.from;
    if (from !== undefined) {
      if (this.#checkpointing === undefined) {
        throw new ConfigError(
          `session("${id}", { from }): forking needs a checkpoint store with the step log of "${from.session}". ` +
            'Configure one with withCheckpointing().',
          { path: 'from' },
        );
      }
      if (this.#sessions.has(id)) {
        throw new ConfigError(
          `session("${id}", { from }): session "${id}" already exists. Fork into a new id.`,
          {
            path: 'id',
          },
        );
      }
      if (!Number.isInteger(from.step) || from.step < 1 || typeof from.session !== 'string') {
        throw new ConfigError(
          `session("${id}", { from }): from must be { session: string, step: positive integer }, got ${JSON.stringify(from)}.`,
          { path: 'from' },
        );
      }
    }
    if (options.owner !== undefined) this.#checkOwner(id, options.owner);
    const runtime = this.#runtime(id, from);
    if (options.owner !== undefined) runtime.link?.claim(options.owner);
    this.#trim();
    return new SessionHandle(id, this.#hooks);
  }

  /**
   * A fresh state for a new or reset session.
   * @internal the engine's (its sessions call it); not part of the public API.
   */
  freshState(): SessionState {
    const rule = this.#orchestration.stopRule;
    return initialSessionState(
      this.#driver.initialState,
      rule?.initialState ?? null,
      this.#orchestration.state?.initial,
    );
  }

  /**
   * Checks a state from `saveState()` with the workflow's one validator (the same as load and
   * fork), so a state it accepts can always be loaded again.
   * @throws ConfigError naming what is wrong and its path.
   * @internal the engine's (its sessions call it); not part of the public API.
   */
  parseState(state: unknown, sessionId: string): Omit<SessionState, 'step'> {
    const checked = this.#validator.saved(state);
    if (!checked.ok) {
      throw new ConfigError(
        `loadState() of session "${sessionId}": ${checked.problem}. ` +
          'Pass a value returned by saveState() of this workflow.',
        { path: checked.path },
      );
    }
    return checked.state;
  }

  #runtime(id: string, fork: SessionOptions['from']): SessionRuntime {
    let runtime = this.#sessions.get(id);
    if (runtime !== undefined && this.#cacheSize !== Number.POSITIVE_INFINITY) {
      // Most recently used last: eviction takes from the front.
      this.#sessions.delete(id);
      this.#sessions.set(id, runtime);
    }
    if (runtime === undefined) {
      const checkpointing = this.#checkpointing;
      const link =
        checkpointing === undefined
          ? undefined
          : this.#link(checkpointing.store, id, checkpointing);
      const origin: SessionOrigin =
        link === undefined && fork === undefined
          ? IN_MEMORY
          : { ...(link === undefined ? {} : { link }), ...(fork === undefined ? {} : { fork }) };
      runtime = new SessionRuntime(
        id,
        this.#orchestration,
        this.#driver,
        this.freshState(),
        origin,
        this.#feed,
      );
      this.#sessions.set(id, runtime);
    }
    return runtime;
  }

  /**
   * Session `id` of `store` as this workflow would take it over, read without writing anything.
   * @throws ConfigError when it cannot take it over; CheckpointError for a damaged log.
   * @internal `checkSessions()`'s; not part of the public API.
   */
  loadStored(store: CheckpointStore, id: string): Promise<SessionState> {
    return this.#link(store, id, this.#checkpointing ?? { store }).load(this.freshState());
  }

  #link(store: CheckpointStore, id: string, options: Omit<Checkpointing, 'store'>): CheckpointLink {
    return new CheckpointLink(store, id, this.#identity, {
      ...options,
      migrate: this.#orchestration.state?.migrate,
      check: (state) => this.#validator.stored(state),
      stateProblem: (data) => stateProblem(this.#orchestration.state?.schema, data),
      fresh: () => this.freshState(),
    });
  }

  /** Drops the least recently used idle sessions beyond the cache size (they stay in the store). */
  #trim(): void {
    let excess = this.#sessions.size - this.#cacheSize;
    if (excess <= 0) return;
    for (const [id, runtime] of this.#sessions) {
      if (excess <= 0) break;
      if (!runtime.evictable) continue;
      this.#sessions.delete(id);
      excess--;
    }
  }

  #dispose(id: string): void {
    const runtime = this.#sessions.get(id);
    if (runtime === undefined) return;
    if (runtime.running) {
      throw new SessionBusyError(id, { detail: 'dispose() waits until it is idle' });
    }
    this.#sessions.delete(id);
    if (this.#checkpointing === undefined) this.#feed.forget(id);
  }

  #checkOwner(id: string, owner: string): void {
    const where = `session("${id}", { owner })`;
    if (typeof owner !== 'string' || owner === '') {
      throw new ConfigError(
        `${where}: owner must be a non-empty string, got ${JSON.stringify(owner)}.`,
        { path: 'owner' },
      );
    }
    if (this.#checkpointing === undefined) {
      throw new ConfigError(
        `${where}: an owner is recorded in a checkpoint store, and this workflow has none. ` +
          'Configure one with withCheckpointing(), or leave owner out.',
        { path: 'owner' },
      );
    }
  }

  async #delete(id: string): Promise<void> {
    if (this.#sessions.get(id)?.running) throw new SessionBusyError(id, { detail: DELETE_WAITS });
    const checkpointing = this.#checkpointing;
    if (checkpointing === undefined) {
      this.#sessions.delete(id);
      this.#feed.forget(id);
      return;
    }
    // The lease keeps other processes (and this one's runs) from starting the session meanwhile.
    const lease = new SessionLease(checkpointing.store, id, checkpointing.clock);
    await lease.acquire(0);
    try {
      if (this.#sessions.get(id)?.running) throw new SessionBusyError(id, { detail: DELETE_WAITS });
      this.#sessions.delete(id);
      await checkpointing.store.delete(id);
    } finally {
      await lease.release();
    }
  }
}

/** What `delete()` says while the session runs here. */
const DELETE_WAITS = 'delete() waits until it is idle';
