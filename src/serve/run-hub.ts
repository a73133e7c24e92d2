import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import { OBSERVE_RUN, type ObservedRun } from '../engine/run/run-observer.js';
import type { Task, TaskResult } from '../engine/runnable.js';
import { type Reading, type StepView, stepViewOf, stepViews } from '../engine/log/step-messages.js';
import type { CheckpointedSession } from '../engine/session/workflow-runner.js';
import { redactSecrets } from '../redact.js';
import { thrownText } from '../value-text.js';
import { sessionBusy } from './http-error.js';
import { LiveRun } from './live-run.js';
import type { ServedWorkflow } from './serve-options.js';
import type { Tenancy } from './tenancy.js';

/** How often a process looks at the store for what another process does. */
export const POLL_MS = 50;
/** How long a stop request for a run in another process waits to be seen. */
const STOP_SIGNAL_MS = 30_000;
const STOP_OWNER = 'baton.stop';

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
  /** The result of each session's latest run here, with the step it ended on. */
  readonly #results = new Map<string, { step: number; result: TaskResult }>();
  #closing = false;

  constructor(workflow: ServedWorkflow, tenancy: Tenancy) {
    this.workflow = workflow;
    this.store = workflow.checkpointStore;
    this.tenancy = tenancy;
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

  /** True when a run of the session is going on, here or in a process sharing the store. */
  async running(id: string): Promise<boolean> {
    if (this.#live.has(id) || this.#starting.has(id)) return true;
    return this.store !== undefined && (await this.store.leaseHolder(id)) !== null;
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

  /** The result of the session's latest run here, when it ended on `step`. */
  resultAt(id: string, step: number): TaskResult | undefined {
    const last = this.#results.get(id);
    return last?.step === step ? last.result : undefined;
  }

  /** Starts a run of `task`; its events go to the returned `LiveRun` (the run goes on without readers). */
  async start(id: string, task: Task | undefined): Promise<LiveRun> {
    if (this.#live.has(id) || this.#starting.has(id)) throw sessionBusy(id);
    this.#starting.add(id);
    const session = this.session(id);
    let live: LiveRun;
    try {
      const last = await this.#lastStep(id, session);
      live = new LiveRun(id, { step: last?.step ?? 0, n: last?.messages.length ?? 0 });
      await this.#takeStopSignal(id, session);
    } finally {
      this.#starting.delete(id);
    }
    this.#live.set(id, live);
    const log = this.store === undefined ? this.#logOf(id) : undefined;
    const options: ObservedRun = {
      signal: live.controller.signal,
      [OBSERVE_RUN]: {
        message: (m) => live.message(m),
        step: (step, appended, state, statePatch) => {
          const view = stepViewOf(step, appended, state, statePatch);
          log?.push(view);
          live.step(view);
        },
      },
    };
    const watching =
      this.store === undefined ? undefined : this.#watchStop(this.store, id, session, live);
    session
      .run(task, options)
      .then(
        (result) => {
          this.#results.set(id, { step: live.last.step, result });
          live.finish(result);
        },
        (error: unknown) => live.fail(redactSecrets(thrownText(error)), error),
      )
      .finally(() => {
        this.#live.delete(id);
        if (this.#results.size > 10_000) this.#results.clear();
        const step = live.steps.at(-1)?.step;
        if (step !== undefined) this.tenancy.touched(id, step);
      });
    void watching;
    return live;
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
    await this.store.acquireLease(stopKey(id), STOP_OWNER, STOP_SIGNAL_MS);
  }

  /** Forgets a deleted session. */
  forget(id: string): void {
    this.#memoryLog.delete(id);
    this.tenancy.forget(id);
  }

  /** Waits for the runs started here to end (they are not cut short). */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all([...this.#live.values()].map((live) => live.ended));
  }

  async #idle(id: string): Promise<void> {
    for (;;) {
      const live = this.#live.get(id);
      if (live !== undefined) await live.ended;
      else if (await this.running(id)) await sleep(POLL_MS);
      else return;
    }
  }

  /** The session's last committed step (read alone: a run's start reads no more of the log). */
  async #lastStep(id: string, session: CheckpointedSession): Promise<StepView | undefined> {
    const store = this.store;
    if (store === undefined) return this.#memoryLog.get(id)?.at(-1);
    const { step } = await session.info();
    if (step === 0) return undefined;
    return stepViews(id, await store.read(id, { from: { after: step - 1 }, upTo: step })).at(-1);
  }

  #logOf(id: string): StepView[] {
    let log = this.#memoryLog.get(id);
    if (log === undefined) {
      log = [];
      this.#memoryLog.set(id, log);
    }
    return log;
  }

  /** A stop asked of another process while the session was idle stops this run at its input. */
  async #takeStopSignal(id: string, session: CheckpointedSession): Promise<void> {
    const store = this.store;
    if (store === undefined || (await store.leaseHolder(stopKey(id))) === null) return;
    session.stop();
    await store.releaseLease(stopKey(id), STOP_OWNER);
  }

  /** While `live` runs: a stop another process asked for stops it. */
  async #watchStop(
    store: CheckpointStore,
    id: string,
    session: CheckpointedSession,
    live: LiveRun,
  ): Promise<void> {
    while (!live.done && !this.#closing) {
      await Promise.race([sleep(POLL_MS * 4), live.ended]);
      if (live.done) return;
      try {
        if ((await store.leaseHolder(stopKey(id))) !== null) {
          session.stop();
          await store.releaseLease(stopKey(id), STOP_OWNER);
        }
      } catch {
        // The store is unreachable: the run itself will say so.
      }
    }
  }
}

/** The lease key that carries a stop request for a session to the process running it. */
function stopKey(id: string): string {
  return `baton.stop:${createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 48)}`;
}
