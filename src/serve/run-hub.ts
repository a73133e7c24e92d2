import { setTimeout as sleep } from 'node:timers/promises';

import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import { MAX_SESSION_ID_LENGTH } from '../checkpoint/session-id.js';
import { hasOwnedLease, type OwnedLease } from '../checkpoint/session-list.js';
import { OPEN_RUN, type OpenedRun, type RunOpening } from '../engine/log/run-opening.js';
import type { Task, TaskResult } from '../engine/runnable.js';
import { type Reading, type StepView, stepViews } from '../engine/log/step-messages.js';
import type { CheckpointedSession } from '../engine/session/workflow-runner.js';
import { SessionBusyError } from '../errors.js';
import { redactSecrets } from '../redact.js';
import { thrownText } from '../value-text.js';
import { HttpError, sessionBusy, sessionNotFound } from './http-error.js';
import type { Cursor } from './event-cursor.js';
import { LiveRun } from './live-run.js';
import { logEnd } from './log-end.js';
import { disposeQuietly, type HubOptions, observedRun, type Opening } from './run-start.js';
import type { ServedWorkflow } from './serve-options.js';
import type { Tenancy } from './tenancy.js';
import { QueuedRuns } from './queued-runs.js';
import { StepSignals } from './step-signals.js';
import { askStop, stopAsked, stopKey, takeStopSignal, watchStop } from './stop-signal.js';

/** How often a process looks at the store for what another process does. */
export const POLL_MS = 50;

/**
 * The runs of one workflow served by this process, and what it knows of runs elsewhere: it starts
 * runs (observing every chunk and committed step), keeps the step log of sessions without a store,
 * reads it from the store otherwise, and carries `stop` to a run in another process through a
 * short-lived lease on a key of its own in the shared store.
 */
export class RunHub {
  readonly workflow: ServedWorkflow;
  readonly store: CheckpointStore | undefined;
  readonly tenancy: Tenancy;
  readonly #live = new Map<string, LiveRun>();
  /** Sessions whose run is being started (between the busy check and the run). */
  readonly #starting = new Set<string>();
  /** Without a store: each session's steps as its runs here committed them. */
  readonly #memoryLog = new Map<string, StepView[]>();
  /** Inputs waiting for a session to be free (`busy: "enqueue"`/`"interrupt"`), in order. */
  readonly #queues = new Map<string, Promise<unknown>>();
  /** Where each session's latest run here left its log: its last step and that step's messages. */
  readonly #ends = new Map<string, Cursor>();
  #closing = false;
  readonly signals: StepSignals;
  readonly #queued: QueuedRuns | undefined;
  readonly #options: HubOptions;
  /** Sessions whose next queued input interrupts the run before it. */
  readonly #interrupting = new Set<string>();

  constructor(workflow: ServedWorkflow, tenancy: Tenancy, options: HubOptions = {}) {
    this.workflow = workflow;
    this.store = workflow.checkpointStore;
    this.tenancy = tenancy;
    this.#options = options;
    this.signals = new StepSignals(options.dispatch?.dispatcher ?? options.signals);
    const store = this.store;
    const dispatch = options.dispatch;
    this.#queued =
      dispatch === undefined || store === undefined
        ? undefined
        : new QueuedRuns(
            {
              store,
              signals: this.signals,
              viewsAfter: (id, step, reading) => this.viewsAfter(id, step, reading),
              step: async (id) => (await this.session(id).info()).step,
            },
            dispatch.dispatcher,
            dispatch.queue,
          );
  }

  /** True when runs go to workers. */
  get dispatched(): boolean {
    return this.#queued !== undefined;
  }

  /** The next input queued for the session interrupts the run before it (`busy: "interrupt"`). */
  interruptNext(id: string): void {
    this.#interrupting.add(id);
  }

  /** Settles when a step of the session is announced, after a while without one, or on `signal`. */
  async changed(id: string, signal?: AbortSignal): Promise<void> {
    const wait = this.signals.active ? POLL_MS * 20 : POLL_MS;
    const aborted = new Promise<void>((resolve) =>
      signal?.addEventListener('abort', () => resolve(), { once: true }),
    );
    await Promise.race([this.signals.next(id), sleep(wait, undefined, { ref: false }), aborted]);
  }

  session(id: string, owner?: string): CheckpointedSession {
    return this.workflow.session(
      id,
      this.store === undefined || owner === undefined ? {} : { owner },
    );
  }

  live(id: string): LiveRun | undefined {
    return this.#live.get(id);
  }

  /** True when a run of the session is going on, or starting, in this process. */
  runningHere(id: string): boolean {
    return this.#live.has(id) || this.#starting.has(id);
  }

  /** True when a run of the session is going on, here or in a process sharing the store. */
  async running(id: string): Promise<boolean> {
    if (this.#live.has(id) || this.#starting.has(id)) return true;
    if (this.#queued?.pending(id) === true) return true;
    return this.store !== undefined && (await this.store.leaseHolder(id)) !== null;
  }

  /**
   * True while a run of the session goes on or will go on without new input — what a stream
   * follows: `running()`, or, with a dispatcher, a job of the session is in the queue: waiting,
   * or (`held`) held by a worker, taken before it holds the lease or kept by a worker that died
   * until the queue hands it to another, the dead worker's lease having expired meanwhile.
   * False: nothing will run the session, the stream ends.
   */
  async goingOn(id: string, held: boolean): Promise<boolean> {
    return (await this.running(id)) || (await this.#queued?.queued(id, held)) === true;
  }

  /** Every committed step of the session, from the store's log or this process's record. */
  async views(id: string, reading?: Reading): Promise<StepView[]> {
    if (this.store === undefined) return [...(this.#memoryLog.get(id) ?? [])];
    return stepViews(id, await this.store.read(id, { from: 'start' }), reading);
  }

  /** The steps committed after `step`, read on from `reading` (without a store: this process's). */
  async viewsAfter(id: string, step: number, reading: Reading): Promise<StepView[]> {
    if (this.store === undefined)
      return (this.#memoryLog.get(id) ?? []).filter((v) => v.step > step);
    return stepViews(id, await this.store.read(id, { from: { after: step } }), reading);
  }

  /** True when the store lets a run's start check the owner as it takes the lease (`TAKE_OWNED`). */
  get opensOwned(): boolean {
    return this.#queued === undefined && this.store !== undefined && hasOwnedLease(this.store);
  }

  /**
   * Starts a run of `task`; its events go to the returned `LiveRun` (the run goes on without
   * readers). `opening`: what `ownedForRun()` read just before, else it is read here; or `owner`
   * (`opensOwned` only): the run checks the owner as it takes the session's lease, reading in that
   * one lookup the log's last step and a stop asked of the idle session, and this resolves once
   * the run holds its lease.
   * @throws HttpError 404 when the session is not `owner`'s; SessionBusyError while it runs.
   */
  async start(id: string, task: Task | undefined, opening: Opening = {}): Promise<LiveRun> {
    if (this.#queued !== undefined) {
      const interrupts = this.#interrupting.delete(id);
      return this.#queued.start(id, task, interrupts);
    }
    const { owner } = opening;
    // No store keeps such an id: no one owns it.
    if (owner !== undefined && id.length > MAX_SESSION_ID_LENGTH) throw sessionNotFound(id);
    if (this.#live.has(id) || this.#starting.has(id)) throw await this.#busy(id, owner);
    this.#starting.add(id);
    const session = this.session(id);
    const controller = new AbortController();
    let live: LiveRun | undefined;
    let isOpen = () => {};
    const open = new Promise<void>((resolve) => (isOpen = resolve));
    const begin = async (reads: [Promise<Cursor>, boolean | Promise<boolean>]) => {
      const [end, asked] = await Promise.all(reads);
      const started = new LiveRun(id, end, controller);
      if (asked) await takeStopSignal(this.store, id, session);
      live = started;
      this.#live.set(id, started);
      this.#starting.delete(id);
      isOpen();
    };
    const log = this.store === undefined ? this.#logOf(id) : undefined;
    const options = observedRun(id, () => live, controller, log, this.#options);
    let ran: Promise<TaskResult>;
    try {
      if (owner === undefined) {
        // Independent reads: the log's end and a stop asked of the idle session, side by side.
        await begin([
          this.#end(id, opening.lastStep),
          opening.stopAsked ?? stopAsked(this.store, id),
        ]);
        ran = session.run(task, options);
      } else {
        const opened = ({ step, holders }: OwnedLease) =>
          begin([this.#end(id, step), (holders[0] ?? null) !== null]);
        const notOwned = () => sessionNotFound(id);
        const run: RunOpening = { owner, leases: [stopKey(id)], notOwned, opened };
        const opensOwned: OpenedRun = { ...options, [OPEN_RUN]: run };
        ran = session.run(task, opensOwned);
        await Promise.race([open, ran]);
        // The answer is built in the check phase: the run first sends its next store call (the
        // catch-up), and the answer's work is done while that call is in flight.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      if (owner === undefined || live !== undefined) throw error;
      // A session of another principal's (or none) is not kept in this process's memory.
      if (error instanceof HttpError) disposeQuietly(session);
      // Busy before the lookup (a run here): another principal's must not learn it exists.
      throw error instanceof SessionBusyError ? await this.#busy(id, owner) : error;
    } finally {
      this.#starting.delete(id);
    }
    if (live === undefined) throw new Error(`The run of session "${id}" ended before it began.`);
    this.#follow(id, session, live, ran);
    return live;
  }

  /** Ends `live` with the run `ran`, and carries a stop asked by another process to it meanwhile. */
  #follow(id: string, session: CheckpointedSession, live: LiveRun, ran: Promise<TaskResult>): void {
    const watching =
      this.store === undefined
        ? undefined
        : watchStop(this.store, id, session, live, () => this.#closing);
    ran
      .then(
        (result) => live.finish(result),
        (error: unknown) => live.fail(redactSecrets(thrownText(error)), error),
      )
      .finally(() => {
        this.#live.delete(id);
        if (this.#ends.size > 10_000) this.#ends.clear();
        this.#ends.set(id, live.last);
        const step = live.steps.at(-1)?.step;
        if (step !== undefined) this.tenancy.touched(id, step);
      });
    void watching;
  }

  /**
   * Runs `start` once the session is free: at once when it is; after the running run ends when
   * `wait`, stopping it first when `interrupt` (inputs wait in the order they came).
   */
  async whenFree<T>(
    id: string,
    mode: 'enqueue' | 'interrupt',
    start: () => Promise<T>,
  ): Promise<T> {
    const before = this.#queues.get(id) ?? Promise.resolve();
    const turn = before
      .catch(() => {})
      .then(async () => {
        if (mode === 'interrupt' && (await this.running(id))) await this.stop(id);
        await this.#idle(id);
        return start();
      });
    this.#queues.set(id, turn);
    try {
      return await turn;
    } finally {
      if (this.#queues.get(id) === turn) this.#queues.delete(id);
    }
  }

  /** `session.stop()`, carried to the process running the session when it is not this one. */
  async stop(id: string): Promise<void> {
    const session = this.session(id);
    if (this.#live.has(id) || this.store === undefined) {
      session.stop();
      return;
    }
    await askStop(this.store, id);
  }

  /** Forgets a deleted session. */
  forget(id: string): void {
    this.#memoryLog.delete(id);
    this.#ends.delete(id);
    this.tenancy.forget(id);
  }

  /** Waits for the runs started here to end (they are not cut short). */
  async close(): Promise<void> {
    this.#closing = true;
    await this.#queued?.close();
    await Promise.all([...this.#live.values()].map((live) => live.ended));
    await this.signals.close();
  }

  /**
   * Cuts short the runs started here, as an aborted `signal` does (status `cancelled`, the
   * interrupted turn not recorded), and waits for them to end and let go of their leases.
   */
  async abortAll(): Promise<void> {
    const runs = [...this.#live.values()];
    for (const live of runs) live.controller.abort();
    await Promise.all(runs.map((live) => live.ended));
  }

  async #idle(id: string): Promise<void> {
    for (;;) {
      const live = this.#live.get(id);
      if (live !== undefined) await live.ended;
      else if (await this.running(id)) await sleep(POLL_MS);
      else return;
    }
  }

  /** The answer to a run of a busy session: 404 when it is not `owner`'s (given), else 409. */
  async #busy(id: string, owner: string | undefined): Promise<HttpError> {
    const owns = owner === undefined || (await this.tenancy.owns(owner, id));
    return owns ? sessionBusy(id) : sessionNotFound(id);
  }

  /** Where the session's log ends (see `logEnd()`); `lastStep`: as an owner lookup just read it. */
  async #end(id: string, lastStep?: number): Promise<Cursor> {
    if (this.store !== undefined) {
      return logEnd(this.store, this.session(id), this.#ends.get(id), lastStep);
    }
    const last = this.#memoryLog.get(id)?.at(-1);
    return { step: last?.step ?? 0, n: last?.messages.length ?? 0 };
  }

  #logOf(id: string): StepView[] {
    const log = this.#memoryLog.get(id) ?? [];
    this.#memoryLog.set(id, log);
    return log;
  }
}
