import { setTimeout as sleep } from 'node:timers/promises';

import type { FeedHost } from '../engine/feed/feed-host.js';

import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import { MAX_SESSION_ID_LENGTH } from '../checkpoint/session-id.js';
import { hasOwnedLease, type OwnedLease } from '../checkpoint/session-list.js';
import { OPEN_RUN, type OpenedRun, type RunOpening } from '../engine/log/run-opening.js';
import type { Task, TaskResult } from '../engine/runnable.js';
import type { Reading, StepView } from '../engine/log/step-messages.js';
import type { CheckpointedSession } from '../engine/session/workflow-runner.js';
import { SessionBusyError } from '../errors.js';
import { redactSecrets } from '../redact.js';
import { thrownText } from '../value-text.js';
import { HttpError, sessionBusy, sessionNotFound } from './http-error.js';
import type { LiveRun } from '../engine/feed/live-run.js';
import { disposeQuietly, type HubOptions, type Opening, runOptions } from './run-start.js';
import type { ServedWorkflow } from './serve-options.js';
import type { Tenancy } from './tenancy.js';
import { QueuedRuns } from './queued-runs.js';
import { QueuePresence } from '../workers/queue-presence.js';
import { channelOf } from '../workers/run-channel.js';
import {
  askStop,
  isStopRequest,
  stopAsked,
  stopKey,
  takeStopSignal,
  watchStop,
} from '../engine/feed/stop-signal.js';

/** How often a process looks at the store for a session to be free. */
const POLL_MS = 50;

/**
 * The runs of one workflow served by this process: it starts them (their events go to the
 * engine's feed, which every stream reads), queues them for workers with a dispatcher, and
 * carries `stop` to a run in another process through a short-lived lease on a key of its own in
 * the shared store.
 */
export class RunHub {
  readonly workflow: ServedWorkflow;
  readonly store: CheckpointStore | undefined;
  readonly tenancy: Tenancy;
  /** What the workflow's runs report, read by every stream. */
  readonly feed: FeedHost;
  /** The runs started here, each with what aborts it. */
  readonly #live = new Map<string, { live: LiveRun; controller: AbortController }>();
  /** Sessions whose run is being started (between the busy check and the run). */
  readonly #starting = new Set<string>();
  /** Inputs waiting for a session to be free (`busy: "enqueue"`/`"interrupt"`), in order. */
  readonly #queues = new Map<string, Promise<unknown>>();
  #closing = false;
  readonly #queued: QueuedRuns | undefined;
  /** Sessions whose next queued input interrupts the run before it. */
  readonly #interrupting = new Set<string>();
  readonly #options: HubOptions;
  readonly #presence: QueuePresence | undefined;

  constructor(workflow: ServedWorkflow, tenancy: Tenancy, options: HubOptions = {}) {
    this.workflow = workflow;
    this.store = workflow.checkpointStore;
    this.tenancy = tenancy;
    this.feed = workflow.feedHost;
    this.feed.watch();
    this.#options = options;
    const dispatch = options.dispatch;
    // Which queues have workers, heard by this hub itself (the feed keeps the first channel
    // attached to its store, which may be another hub's or a worker's).
    const presence = dispatch === undefined ? undefined : new QueuePresence(dispatch.dispatcher);
    this.#presence = presence;
    if (dispatch !== undefined) {
      this.feed.attach(channelOf(dispatch.dispatcher, dispatch.queue, this.store));
    }
    const store = workflow.checkpointStore;
    this.#queued =
      dispatch === undefined || store === undefined
        ? undefined
        : new QueuedRuns(
            {
              store,
              feed: this.feed,
              ...(presence === undefined ? {} : { presence }),
              viewsAfter: (id, step, reading) => this.feed.viewsAfter(id, step, reading),
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

  session(id: string, owner?: string): CheckpointedSession {
    return this.workflow.session(
      id,
      this.store === undefined || owner === undefined ? {} : { owner },
    );
  }

  live(id: string): LiveRun | undefined {
    return this.feed.live(id);
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

  /** Every committed step of the session, from the store's log or this process's record. */
  views(id: string, reading?: Reading): Promise<StepView[]> {
    return this.feed.views(id, reading);
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
    const options = runOptions(id, controller, this.#options, opening.principal);
    let ran: Promise<TaskResult> | undefined;
    let live: LiveRun | undefined;
    let next: { begun: Promise<LiveRun>; cancel(): void } | undefined;
    try {
      next = this.feed.nextRun(id);
      if (owner === undefined) {
        const asked = await (opening.stopAsked ?? stopAsked(this.store, id));
        if (asked) await takeStopSignal(this.store, id, session);
        ran = session.run(task, options);
      } else {
        const opened = async ({ holders }: OwnedLease) => {
          if (isStopRequest(holders[0])) await takeStopSignal(this.store, id, session);
        };
        const notOwned = () => sessionNotFound(id);
        const run: RunOpening = { owner, leases: [stopKey(id)], notOwned, opened };
        const opens: OpenedRun = { ...options, [OPEN_RUN]: run };
        ran = session.run(task, opens);
      }
      live = await Promise.race([next.begun, ran.then(() => undefined)]);
      // The answer is built in the check phase: a quick run has ended by then (its answer is one
      // body), a slow one has sent its next store or model call.
      await new Promise<void>((resolve) => setImmediate(resolve));
    } catch (error) {
      if (owner !== undefined && error instanceof HttpError) disposeQuietly(session);
      // Busy before the lookup (a run here): another principal's must not learn it exists.
      if (error instanceof SessionBusyError) throw await this.#busy(id, owner);
      if (owner !== undefined || ran === undefined) throw error;
      // The run failed before it began (its log unreadable, another workflow's session).
      const failed = this.feed.failedRun(id, redactSecrets(thrownText(error)), error);
      return failed;
    } finally {
      next?.cancel();
      this.#starting.delete(id);
    }
    if (live === undefined) throw new Error(`The run of session "${id}" ended before it began.`);
    this.#follow(id, session, live, controller, ran);
    return live;
  }

  /** Forgets `live` once the run `ran` ended; carries a stop asked by another process meanwhile. */
  #follow(
    id: string,
    session: CheckpointedSession,
    live: LiveRun,
    controller: AbortController,
    ran: Promise<TaskResult>,
  ): void {
    this.#live.set(id, { live, controller });
    if (this.store !== undefined) {
      void watchStop(this.store, id, session, live, () => this.#closing);
    }
    ran
      .catch(() => {})
      .finally(() => {
        this.#live.delete(id);
        const step = live.steps.at(-1)?.step;
        if (step !== undefined) this.tenancy.touched(id, step);
      });
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
    this.feed.forget(id);
    this.tenancy.forget(id);
  }

  /** Waits for the runs started here to end (they are not cut short). */
  async close(): Promise<void> {
    this.#closing = true;
    await this.#queued?.close();
    await this.#presence?.close();
    await Promise.all([...this.#live.values()].map(({ live }) => live.ended));
    this.feed.wakeAll();
  }

  /**
   * Cuts short the runs started here, as an aborted `signal` does (status `cancelled`, the
   * interrupted turn not recorded), and waits for them to end and let go of their leases.
   */
  async abortAll(): Promise<void> {
    const runs = [...this.#live.values()];
    for (const { controller } of runs) controller.abort();
    await Promise.all(runs.map(({ live }) => live.ended));
  }

  async #idle(id: string): Promise<void> {
    for (;;) {
      const live = this.#live.get(id)?.live;
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
}
