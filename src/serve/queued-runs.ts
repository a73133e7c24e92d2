import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import type { Task } from '../engine/runnable.js';
import type { Reading, StepView } from '../engine/log/step-messages.js';
import { textMessage } from '../messages/message-factories.js';
import { type Dispatcher, queueOf } from '../workers/dispatcher.js';
import type { QueuePresence } from '../workers/queue-presence.js';
import { LiveRun } from '../engine/feed/live-run.js';
import { resultOf } from '../engine/feed/run-result.js';
import type { FeedHost } from '../engine/feed/feed-host.js';

/** What a queued run needs of its hub. */
export interface QueueHost {
  readonly store: CheckpointStore;
  readonly feed: FeedHost;
  /** Which queues the workers serve, from their announcements. */
  readonly presence?: QueuePresence;
  viewsAfter(id: string, step: number, reading: Reading): Promise<StepView[]>;
  step(id: string): Promise<number>;
}

/**
 * Runs of a server with a dispatcher: each input is queued for a worker, and its
 * answer is followed in the store — from the step that took the input (known by the input's
 * message id) to the step that ended the run — woken by the workers' announcements.
 */
export class QueuedRuns {
  readonly #host: QueueHost;
  readonly #dispatcher: Dispatcher;
  readonly #queue: string;
  /** Sessions with inputs queued by this server whose run has not ended, and how many. */
  readonly #pending = new Map<string, number>();
  readonly #followers = new Set<Promise<void>>();
  #closed = false;

  constructor(host: QueueHost, dispatcher: Dispatcher, queue: string) {
    this.#host = host;
    this.#dispatcher = dispatcher;
    this.#queue = queue;
  }

  /** True while an input this server queued for the session has not been answered. */
  pending(id: string): boolean {
    return (this.#pending.get(id) ?? 0) > 0;
  }

  /**
   * True while a job of the session, queued by any server, is in the queue and not done (`held`:
   * a job a worker holds counts too; see `Dispatcher.pending()`).
   */
  queued(id: string, held: boolean): Promise<boolean> {
    return this.#dispatcher.pending(this.#queue, id, held);
  }

  /** Queues `task` for the session; the returned run carries the steps of the run that takes it. */
  async start(id: string, task: Task | undefined, interrupts: boolean): Promise<LiveRun> {
    const { job, inputId } = marked(task);
    let step = await this.#host.step(id);
    // An input whose message id the client chose may be one sent again (a retry after a timeout):
    // when the log has it, the answer is the run that took it, and nothing is queued again.
    const taken =
      typeof task === 'object' && inputId !== null ? await this.#takenAt(id, inputId) : undefined;
    if (taken !== undefined) step = taken;
    const live = new LiveRun(id, { step, n: 0 });
    this.#pending.set(id, (this.#pending.get(id) ?? 0) + 1);
    try {
      if (taken === undefined) {
        await this.#dispatcher.enqueue(this.#queue, {
          sessionId: id,
          task: job,
          inputId,
          ...(interrupts ? { interrupts: true } : {}),
        });
      }
    } catch (error) {
      this.#done(id);
      throw error;
    }
    const following = this.#follow(id, inputId, step, live)
      .catch((error: unknown) => live.fail(String(error), error))
      .finally(() => {
        this.#done(id);
        this.#followers.delete(following);
        if (!live.done) live.fail('the server closed before the run ended');
      });
    this.#followers.add(following);
    return live;
  }

  /** Stops following (the queued runs go on in the workers). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#host.feed.wakeAll();
    await Promise.all([...this.#followers]);
  }

  /** The step before the one that committed message `inputId`, when the log has it. */
  async #takenAt(id: string, inputId: string): Promise<number | undefined> {
    const reading: Reading = { length: 0, status: 'idle', pending: null };
    const views = await this.#host.viewsAfter(id, 0, reading);
    const step = views.find((view) => view.messages.some((m) => m.id === inputId))?.step;
    return step === undefined ? undefined : step - 1;
  }

  #done(id: string): void {
    const left = (this.#pending.get(id) ?? 1) - 1;
    if (left <= 0) this.#pending.delete(id);
    else this.#pending.set(id, left);
  }

  async #follow(id: string, inputId: string | null, base: number, live: LiveRun): Promise<void> {
    const host = this.#host;
    const reading: Reading = { length: 0, status: 'idle', pending: null };
    let lastStep = base;
    let run: StepView[] | undefined;
    let drafted = 0;
    for (let round = 1; !this.#closed; round++) {
      // Woken by the next announced step (waiting from before the read, so none is missed).
      const woken = host.feed.changed(id);
      const making = lastStep + 1;
      const fresh = await host.viewsAfter(id, lastStep, reading);
      // The drafts the worker published of the step it was making (committed since, maybe) come
      // before that step, each once.
      if (run !== undefined) {
        const drafts = host.feed.remoteDrafts(id, making);
        for (const draft of drafts.slice(drafted)) {
          if (draft.kind === 'message') live.message(draft.message);
        }
        drafted = drafts.length;
      }
      for (const view of fresh) {
        lastStep = view.step;
        if (run === undefined) {
          if (inputId !== null && !view.messages.some((m) => m.id === inputId)) continue;
          run = [];
        }
        run.push(view);
        live.step(view);
        drafted = 0;
        // `cancelled`: a worker shutting down handed the run on; another worker goes on with it.
        if (view.status !== 'idle' && view.status !== 'cancelled') {
          live.finish(resultOf(id, run, view.pendingRequest, view.status));
          return;
        }
      }
      // A worker that fails a job for good says why, and announces it: read it when woken with
      // nothing new (an announcement, or now and then should one be lost).
      if (fresh.length === 0 && inputId !== null) {
        const failed = await host.feed.channel?.failure?.(inputId);
        if (failed !== undefined) {
          live.fail(failed);
          return;
        }
      }
      const queue = queueOf(this.#dispatcher, this.#queue);
      if (run === undefined && host.presence !== undefined && !host.presence.served(queue)) {
        live.fail(unserved(queue, host.presence.servedQueues()));
        return;
      }
      await woken;
    }
  }
}

/** Why an input waits for good: no worker serves its queue (the workers announce theirs). */
function unserved(queue: string, served: readonly string[]): string {
  const others =
    served.length === 0
      ? 'no worker announced itself at all'
      : `workers serve ${served.map((q) => `"${q}"`).join(', ')}`;
  return (
    `No worker serves queue "${queue}" (${others}). Start one for this workflow ` +
    '(`baton worker <module> --queue <url>`, or startWorker()); the input stays queued and runs when one does.'
  );
}

/** The input as a job carries it, with the id of its (first) message. */
function marked(task: Task | undefined): { job: Task | null; inputId: string | null } {
  if (task === undefined) return { job: null, inputId: null };
  if (typeof task === 'string') {
    const message = textMessage({ source: 'user', content: task });
    return { job: message, inputId: message.id };
  }
  if (isMessageList(task)) return { job: task, inputId: task[0]?.id ?? null };
  return { job: task, inputId: task.id };
}

function isMessageList(task: Task): task is Extract<Task, readonly unknown[]> {
  return Array.isArray(task);
}
