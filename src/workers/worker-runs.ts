import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import type { LiveRun } from '../engine/feed/live-run.js';
import type { RunEvent } from '../engine/feed/run-event.js';
import { stopAsked, takeStopSignal, watchStop } from '../engine/feed/stop-signal.js';
import { HAND_OVER, INPUT_ONCE, type WorkerRun } from '../engine/run/run-observer.js';
import type { RunOptions, Task } from '../engine/runnable.js';
import { type CallLimit, LIMIT_CALLS } from '../engine/run/call-limit.js';
import type { ServedWorkflow } from '../engine/session/served-workflow.js';
import { redactSecrets } from '../redact.js';
import { thrownText } from '../value-text.js';
import type { Dispatcher } from './dispatcher.js';
import { channelOf } from './run-channel.js';

/**
 * The runs a worker makes, through the engine: each job's input is run on its session as an input
 * given once, handed on when the worker closes (`handOver`); every step it commits, and every
 * draft of the step being made, goes out on the queue engine's channel (the session's feed is
 * attached to it); a stop another process asks for stops the run.
 */
export class WorkerRuns {
  readonly #workflow: ServedWorkflow;
  readonly #store: CheckpointStore;
  readonly #handOver: AbortSignal;
  /** The limit of each session's runs beyond its own conditions (a tenant's daily cap). */
  readonly #limit: ((sessionId: string) => CallLimit) | undefined;
  readonly #running = new Map<string, { live: LiveRun; controller: AbortController }>();
  #closing = false;

  constructor(
    workflow: ServedWorkflow,
    store: CheckpointStore,
    dispatcher: Dispatcher,
    handOver: AbortSignal,
    limit?: (sessionId: string) => CallLimit,
  ) {
    this.#limit = limit;
    this.#workflow = workflow;
    this.#store = store;
    this.#handOver = handOver;
    workflow.feedHost.attach(channelOf(dispatcher, null, store));
  }

  /**
   * Runs `task` on session `id` to its end: the run's last event (its result or its error), or
   * the error it failed with before it began.
   */
  async run(
    id: string,
    task: Task | undefined,
  ): Promise<RunEvent | { kind: 'thrown'; error: unknown }> {
    const store = this.#store;
    const session = this.#workflow.session(id);
    const controller = new AbortController();
    const next = this.#workflow.feedHost.nextRun(id);
    let live: LiveRun | undefined;
    let ran: Promise<unknown> | undefined;
    try {
      if (await stopAsked(store, id)) await takeStopSignal(store, id, session);
      const options: RunOptions & WorkerRun = {
        signal: controller.signal,
        [HAND_OVER]: this.#handOver,
        [INPUT_ONCE]: true,
        ...(this.#limit === undefined ? {} : { [LIMIT_CALLS]: this.#limit(id) }),
      };
      ran = session.run(task, options);
      live = await Promise.race([next.begun, ran.then(() => undefined)]);
    } catch (error) {
      return { kind: 'thrown', error };
    } finally {
      next.cancel();
    }
    if (live === undefined)
      return { kind: 'thrown', error: new Error(`the run of "${id}" ended before it began`) };
    this.#running.set(id, { live, controller });
    void watchStop(store, id, session, live, () => this.#closing);
    try {
      await ran;
    } catch (error) {
      if (live.events.at(-1)?.kind !== 'error') {
        return { id: live.last, kind: 'error', message: redactSecrets(thrownText(error)), error };
      }
    } finally {
      this.#running.delete(id);
    }
    await live.ended;
    const last = live.events.at(-1);
    return (
      last ?? { kind: 'thrown', error: new Error(`the run of "${id}" ended without a result`) }
    );
  }

  /** Cuts the running runs short (as an aborted signal does) and waits for them to end. */
  async abortAll(): Promise<void> {
    this.#closing = true;
    const runs = [...this.#running.values()];
    for (const { controller } of runs) controller.abort();
    await Promise.all(runs.map(({ live }) => live.ended));
  }
}
