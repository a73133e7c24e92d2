import { freeze } from 'immer';
import { ConfigError, SessionBusyError } from '../../errors.js';
import type { AgentMessage } from '../../messages/message.js';
import { traceRun } from '../../observability/gen-ai-spans.js';
import type { CheckpointLink } from '../log/checkpoint-link.js';
import { infoOf, readRunning } from './session-info.js';
import { openingOf, type RunOpening } from '../log/run-opening.js';
import type { MachineDriver } from '../run/machine-driver.js';
import type { Orchestration } from '../orchestration.js';
import type { RunOptions, SessionInfo, Task, TaskResult } from '../runnable.js';
import type { CheckpointInfo } from '../log/checkpoint-info.js';
import { type MessageSink, type RunHost, SessionRun } from '../run/session-run.js';
import {
  applyStep,
  type CommittedStep,
  NO_MESSAGES,
  owningThread,
  type SessionState,
} from '../state/session-state.js';
import type { Step } from '../state/step.js';
import { threadOf } from '../state/state-thread.js';
import { type StopCheck, SessionStop } from '../run/session-stop.js';
import type { ModelGate } from '../run/model-gate.js';
import { callLimitOf } from '../run/call-limit.js';
import type { StopChange } from '../state/step-changes.js';
import {
  EMPTY_STATE,
  produceState,
  type StateRecipe,
  type StateValue,
} from '../../agents/conversation-state.js';
import { TurnState } from '../../agents/turn-state.js';
import { withTurnUpdates } from '../state/turn-updates.js';
import { redactSecrets } from '../../redact.js';
import { thrownText } from '../../value-text.js';
import { draftSink, type FeedHost } from '../feed/feed-host.js';
import type { LiveRun } from '../feed/live-run.js';

export type { MessageSink } from '../run/session-run.js';

/** Where a session comes from: its own log, or a past step of another session (a fork). */
export interface SessionOrigin {
  readonly link?: CheckpointLink;
  readonly fork?: { readonly session: string; readonly step: number };
}

/** The load of a session without a store, which has nothing to load. */
const LOADED: Promise<void> = Promise.resolve();

/**
 * One conversation: its state, where it is stored, and who may run it. A run (`SessionRun`)
 * advances it one committed step at a time; this class loads the state, holds the lease while a
 * run, a reset or a `loadState` is in progress, and answers `info()` and `checkpoints()`.
 */
export class SessionRuntime implements RunHost {
  readonly id: string;
  readonly orchestration: Orchestration;
  readonly driver: MachineDriver;
  readonly #link: CheckpointLink | undefined;
  readonly #origin: SessionOrigin;
  #state: SessionState;
  #loading: Promise<void> | undefined;
  #loaded = false;
  #running = false;
  /** This session's own stop rule and `stop()` requests. */
  #stop: SessionStop | undefined;
  /** The conversation states of the turns since the last commit, whose updates it records. */
  #turns: TurnState[] | undefined;
  /** Where this process's runs report what they do (the session's feed). */
  readonly #feed: FeedHost;
  /** The run in progress, as the feed shows it. */
  #live: LiveRun | undefined;

  constructor(
    id: string,
    orchestration: Orchestration,
    driver: MachineDriver,
    fresh: SessionState,
    origin: SessionOrigin,
    feed: FeedHost,
  ) {
    this.id = id;
    this.#feed = feed;
    this.orchestration = orchestration;
    this.driver = driver;
    this.#state = fresh;
    this.#link = origin.link;
    this.#origin = origin;
    if (origin.link === undefined) {
      // Nothing to load: one settled promise serves every such session (one each was 48 bytes).
      this.#loading = LOADED;
      this.#loaded = true;
    }
  }

  /**
   * True when the session can be dropped from memory and reloaded from its store later: it is not
   * running, has no stop request waiting, and a fork it starts from has been written.
   */
  get evictable(): boolean {
    return (
      !this.#running &&
      this.#stop?.requested !== true &&
      (this.#origin.fork === undefined || this.#loaded)
    );
  }

  /** Where the session is checkpointed, when its workflow has a store. */
  get link(): CheckpointLink | undefined {
    return this.#link;
  }

  get running(): boolean {
    return this.#running;
  }

  /**
   * Stops this session at its next check (after the current agent turn, or on the next run's
   * input), with `reason` as the stop reason.
   */
  stop(reason: string): void {
    this.#stops().request(reason);
  }

  /** The state as last loaded or committed (call `current()` to catch up with the store). */
  get state(): SessionState {
    return this.#state;
  }

  /** The state, after loading and catching up with steps other processes committed. */
  async current(): Promise<SessionState> {
    await this.#ready();
    if (this.#link !== undefined && !this.#running)
      this.#state = owningThread(await this.#link.catchUp(this.#state));
    return this.#state;
  }

  /** Replaces the state as one step (reset, loadState); refused while a run is in progress. */
  async replace(next: (current: SessionState) => SessionState, event: string): Promise<void> {
    await this.#exclusive(async () => {
      const state = { ...next(this.#state), step: this.#state.step + 1 };
      await this.#link?.replace(state, event);
      this.#state = owningThread(state);
    });
  }

  async info(): Promise<SessionInfo> {
    const s = await this.current();
    if (this.#running || this.#link === undefined) return infoOf(s, this.#running);
    const read = await readRunning(this.#link, s, () => this.current());
    return infoOf(read.state, read.running);
  }

  async checkpoints(): Promise<CheckpointInfo[]> {
    if (this.#link === undefined) {
      throw new ConfigError(
        `Session "${this.id}" has no step log: its workflow keeps sessions in memory only. ` +
          'Configure a checkpoint store (e.g. withCheckpointing(new MemoryCheckpointStore())).',
        { path: 'checkpointStore' },
      );
    }
    await this.#ready();
    return this.#link.checkpoints();
  }

  async run(task?: Task, options: RunOptions = {}, sink?: MessageSink): Promise<TaskResult> {
    const feed = this.#feed;
    let live: LiveRun | undefined;
    try {
      const result = await traceRun(this.orchestration.name, this.id, options.principal?.id, () =>
        this.#exclusive(async () => {
          live = feed.begin(this.id, this.#state.step);
          this.#live = live;
          const limit = callLimitOf(options);
          if (limit !== undefined) this.#stops().limit = limit;
          try {
            return await new SessionRun(this, options, draftSink(feed, live, sink)).run(task);
          } finally {
            this.#live = undefined;
            this.#turns = undefined;
            this.#stop?.endRun();
            // A paused session keeps no index of its thread (its next run builds it in one pass).
            threadOf(this.#state).releaseIndex();
          }
        }, openingOf(options)),
      );
      // The feed's readers hear the end once the lease is let go: the session is free then.
      if (live !== undefined) await feed.end(live, { result });
      return result;
    } catch (error) {
      if (live !== undefined) {
        await feed.end(live, { error: redactSecrets(thrownText(error)), thrown: error });
      }
      throw error;
    }
  }

  /** Runs `work` as the only activity on this session, here and in every process sharing the store. */
  async #exclusive<T>(work: () => Promise<T>, opening?: RunOpening): Promise<T> {
    if (this.#running) throw new SessionBusyError(this.id);
    this.#running = true;
    const link = this.#link;
    let leased = false;
    try {
      // With `opening` (OPEN_RUN) the lease comes first, the owner's only: nothing loaded before.
      leased = (await link?.open(this.#state.step + 1, opening)) === true;
      // A session without a store is loaded from the start: nothing to await.
      if (!this.#loaded) await this.#ready();
      if (link !== undefined) {
        if (!leased) await link.lease.acquire(this.#state.step + 1);
        leased = true;
        this.#state = owningThread(await link.catchUp(this.#state));
      }
      return await work();
    } finally {
      if (leased) await link?.lease.release();
      this.#running = false;
    }
  }

  #ready(): Promise<void> {
    this.#loading ??= (async () => {
      const link = this.#link;
      if (link === undefined) return;
      const fork = this.#origin.fork;
      this.#state = owningThread(
        fork === undefined
          ? await link.load(this.#state)
          : await link.fork(fork.session, fork.step),
      );
    })()
      .then(() => {
        this.#loaded = true;
      })
      .catch((error: unknown) => {
        this.#loading = undefined;
        throw error;
      });
    return this.#loading;
  }

  // What a run may do to this session (`RunHost`): read the state, commit, check the stop rule,
  // confirm the lease. The runtime is the host of its runs itself: a host object per run (with a
  // closure per effect) cost more than the rest of a run's bookkeeping.

  /**
   * Records `step`; a session without a store has nothing to wait for (see `RunHost.commit`).
   * A committed stop answers a `stop()` request a check returned (only then: a failed commit
   * leaves the request for the next check).
   */
  commit(made: Step): Promise<void> | undefined {
    const turns = this.#turns;
    // A start commit (§17) is made mid-turn: it takes the updates so far, and the turns go on.
    if (made.kind !== 'started') this.#turns = undefined;
    const updated = turns === undefined ? made : withTurnUpdates(made, turns);
    // What the run's model calls spent since the last check is recorded with the next step.
    const step = this.#stop?.spend === undefined ? updated : this.#stop.spend.recorded(updated);
    const committed = applyStep(this.#state, step);
    const link = this.#link;
    if (link === undefined) {
      this.#committed(committed);
      return undefined;
    }
    return link.commit(committed).then(() => this.#committed(committed));
  }

  #committed(committed: CommittedStep): void {
    this.#state = committed.state;
    if (committed.step.status === 'terminated') this.#stop?.committedStop();
    if (this.#live !== undefined)
      this.#feed.committed(this.#live, committed.state, committed.change);
  }

  /** The conversation state of an agent turn starting now; its updates go with the next commit. */
  turnState(): TurnState {
    const data = freeze(this.#state.data ?? EMPTY_STATE, true);
    const turn = new TurnState(data, this.orchestration.state?.schema);
    (this.#turns ??= []).push(turn);
    return turn;
  }

  turnData(): StateValue {
    return this.#turns?.at(-1)?.value ?? this.#state.data ?? EMPTY_STATE;
  }

  /** The conversation state, deep-frozen. */
  async data(): Promise<StateValue> {
    return freeze((await this.current()).data ?? EMPTY_STATE, true);
  }

  /**
   * Changes the conversation state from the application, as a step of its own (`state_update`).
   * @throws SessionBusyError while a run is in progress; ConfigError for an invalid new state;
   *   the recipe's own error. Nothing is committed when it throws.
   */
  async updateState(recipe: StateRecipe): Promise<void> {
    await this.#exclusive(async () => {
      const where = `session("${this.id}").updateState()`;
      const base = freeze(this.#state.data ?? EMPTY_STATE, true);
      const { ops } = produceState(base, recipe, this.orchestration.state?.schema, where);
      if (ops.length === 0) return;
      await this.commit({ kind: 'state', statePatch: ops });
    });
  }

  checkStop(
    delta: readonly AgentMessage[],
    conditionState: unknown = this.#state.termination,
    before: readonly AgentMessage[] = NO_MESSAGES,
  ): StopCheck | Promise<StopCheck> {
    // A session of a workflow without a stop rule, never asked to stop, has nothing to check.
    if (this.#stop === undefined && this.orchestration.stopRule === undefined) {
      return { stop: null, state: conditionState };
    }
    return this.#stops().check(delta, conditionState, threadOf(this.#state), before);
  }

  stopChange(machineState: string, conditionState: unknown, reason: string): Promise<StopChange> {
    return this.#stops().change(this.driver, machineState, conditionState, reason);
  }

  /** The gate of this session's model calls: its stop rule, when that judges them. */
  modelGate(): ModelGate | undefined {
    if (this.#stop === undefined && this.orchestration.stopRule === undefined) return undefined;
    return this.#stops().gate(() => this.#state.termination);
  }

  /**
   * This session's own stop rule and `stop()` requests, made on first use: most sessions of a
   * workflow without a stop rule never need one (a paused session keeps 56 bytes less).
   */
  #stops(): SessionStop {
    this.#stop ??= new SessionStop(this.id, this.orchestration.stopRule);
    return this.#stop;
  }

  confirmLease(step: number): Promise<void> | undefined {
    return this.#link?.lease.confirm(step);
  }
}
