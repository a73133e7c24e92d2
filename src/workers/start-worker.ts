import { setTimeout as sleep } from 'node:timers/promises';

import {
  CheckpointError,
  ConfigError,
  SessionBusyError,
  StoreUnavailableError,
} from '../errors.js';
import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import { STOP_OWNER, stopKey } from '../engine/feed/stop-signal.js';
import { InputTaken } from '../engine/run/run-observer.js';
import { isServedWorkflow, type ServedWorkflow } from '../engine/session/served-workflow.js';
import {
  checkDispatcher,
  checkSharedStore,
  outcomeKey,
  type Dispatcher,
  type JobOutcome,
  queueNameOf,
  type RunJob,
} from './dispatcher.js';
import { failedOutcome } from './run-channel.js';
import { WorkerRuns } from './worker-runs.js';

/** Options of `startWorker()`. */
export interface WorkerOptions {
  /** The queue engine the runs come from. */
  dispatcher: Dispatcher;
  /** How many runs this worker makes at once. @default 10 */
  concurrency?: number;
  /** How long `close()` lets running turns finish before it gives up on them. @default 30_000 */
  shutdownTimeoutMs?: number;
}

/** A running worker. */
export interface Worker {
  /**
   * Takes no new jobs and starts no further turn: each running run finishes the turn it is making
   * (for up to `shutdownTimeoutMs`, then it is cut short), releases its lease and hands its job
   * back, so another worker goes on with the session from its last committed step at once.
   */
  close(): Promise<void>;
}

/** How long a job whose session is busy elsewhere waits before it is tried again. */
const BUSY_RETRY_MS = 500;
/** How long a run's outcome stays readable for the server that queued it. */
const OUTCOME_TTL_MS = 5 * 60_000;

/**
 * Takes the workflow's queued runs (API.md §16) and makes them, `concurrency` at once: each job's
 * input is run on its session, or — when an earlier attempt of the job committed the input and
 * died — the interrupted run is finished. Every committed step is announced to the servers.
 * @throws ConfigError at once when the workflow's store is not one that machines share.
 */
export async function startWorker(
  workflow: ServedWorkflow,
  options: WorkerOptions,
): Promise<Worker> {
  if (!isServedWorkflow(workflow)) {
    throw new ConfigError('startWorker(): pass a built workflow or team.', { path: 'workflow' });
  }
  const dispatcher = checkDispatcher(options?.dispatcher, 'startWorker()');
  checkSharedStore(workflow.checkpointStore, 'startWorker()');
  const { concurrency = 10, shutdownTimeoutMs = 30_000 } = options;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new ConfigError(
      `startWorker(): \`concurrency\` must be a positive integer, got ${JSON.stringify(concurrency)}.`,
      { path: 'concurrency' },
    );
  }
  if (!Number.isSafeInteger(shutdownTimeoutMs) || shutdownTimeoutMs < 0) {
    throw new ConfigError(
      `startWorker(): \`shutdownTimeoutMs\` must be a non-negative integer, got ${JSON.stringify(shutdownTimeoutMs)}.`,
      { path: 'shutdownTimeoutMs' },
    );
  }
  // Aborted by close(): the runs finish their turn and hand the rest on to another worker.
  const handOver = new AbortController();
  const store = workflow.checkpointStore;
  // `checkSharedStore()` above: there is one.
  if (store === undefined) throw new ConfigError('startWorker(): the workflow has no store.');
  const runs = new WorkerRuns(workflow, store, dispatcher, handOver.signal);
  const consumer = await dispatcher.consume(
    queueNameOf(workflow),
    (job) => runJob(workflow, store, runs, job, dispatcher, handOver.signal),
    {
      concurrency,
      // The lease a running session holds, renewed every second: none on a session whose job is
      // taken means that job's worker died (or never reached the session).
      running: async (id) => (await store.leaseHolder(id)) !== null,
    },
  );
  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        handOver.abort();
        const stopped = consumer.stop().catch(() => {});
        const timer = sleep(shutdownTimeoutMs, undefined, { ref: false }).then(() => 'timeout');
        if ((await Promise.race([stopped, timer])) !== 'timeout') return;
        // Turns still running are cut short (their leases let go, their jobs handed back), so
        // another worker resumes them at once rather than after the lease expires.
        await runs.abortAll();
        await stopped;
      })();
      return closing;
    },
  };
}

/**
 * Makes one job's run; says when to try again instead (its session is busy elsewhere, or this
 * worker is closing: `handOver`).
 */
async function runJob(
  workflow: ServedWorkflow,
  store: CheckpointStore,
  runs: WorkerRuns,
  job: RunJob,
  dispatcher: Dispatcher,
  handOver: AbortSignal,
): Promise<JobOutcome> {
  const id = job.sessionId;
  const session = workflow.session(id);
  let task = job.task ?? undefined;
  try {
    if (job.inputId !== null) {
      const messages = await session.messages();
      if (messages.some((m) => m.id === job.inputId)) {
        // An earlier attempt took the input: finish its run, unless it ended.
        const { status } = await session.info();
        if (status === 'running') return { done: false, retryMs: BUSY_RETRY_MS };
        // `cancelled`: a worker shutting down handed the run on (or cut it short): it goes on here.
        if (status !== 'idle' && status !== 'cancelled') return { done: true };
        task = undefined;
      }
    }
    if (job.interrupts === true) await store.releaseLease(stopKey(id), STOP_OWNER);
    // A worker closing starts no run: the job goes back to the queue for another worker.
    if (handOver.aborted) return { done: false, retryMs: 0 };
    const last = await runs.run(id, task);
    if (last.kind === 'thrown') {
      if (retried(last.error)) return { done: false, retryMs: BUSY_RETRY_MS };
      throw last.error;
    }
    if (last.kind === 'error' && retried(last.error))
      return { done: false, retryMs: BUSY_RETRY_MS };
    // Handed on or cut short by this worker's close(): another worker goes on with it at once.
    if (last?.kind === 'result' && last.result.status === 'cancelled')
      return { done: false, retryMs: 0 };
    // A run that failed leaves its error for the server that queued the input (the log keeps what
    // the run committed, not why it failed); a result is in the log.
    if (job.inputId !== null && last.kind === 'error') {
      await store.acquireLease(
        outcomeKey(job.inputId),
        failedOutcome(last.message),
        OUTCOME_TTL_MS,
      );
      // The server that queued the input waits for this outcome: wake it now.
      await dispatcher.announce(id).catch(() => {});
    }
    return { done: true };
  } catch (error) {
    if (retried(error)) return { done: false, retryMs: BUSY_RETRY_MS };
    throw error;
  }
}

/**
 * Errors that end an attempt, not the job: another worker holds the session or took its input
 * first, or the store is out of reach.
 */
function retried(error: unknown): boolean {
  return (
    error instanceof SessionBusyError ||
    // Another attempt took the input between this one's look at the log and its lease: the next
    // attempt finds it there and goes on from the log.
    error instanceof InputTaken ||
    error instanceof CheckpointError ||
    error instanceof StoreUnavailableError
  );
}
