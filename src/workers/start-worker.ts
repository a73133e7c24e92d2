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
import { type BudgetsOptions, checkBudgets, tenantDayLimits } from './tenant-budget.js';
import { sessionOwner } from '../checkpoint/session-owner.js';
import {
  checkDispatcher,
  checkSharedStore,
  outcomeKey,
  PRESENCE_MS,
  presenceOf,
  queueOf,
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
  /**
   * How many times a job that cannot run (its session was written by a workflow this one cannot
   * take over, its input fails every time) is tried, with a growing pause between, before it is
   * failed for good and the client waiting on it gets the error. A session busy elsewhere is not a
   * failed attempt. @default 3
   */
  attempts?: number;
  /**
   * Where the worker writes one line per job failed for good (naming the job, the session and
   * the reason). @default a line on stderr
   */
  log?: (line: string) => void;
  /** Budgets in money across sessions, as `serve()` takes them (a tenant's daily cap). */
  budgets?: BudgetsOptions;
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
/** The pause after a job's first failed attempt; it doubles after each next one. */
const FIRST_BACKOFF_MS = 200;

/**
 * Takes the workflow's queued runs and makes them, `concurrency` at once: each job's
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
  const { concurrency = 10, shutdownTimeoutMs = 30_000, attempts = 3 } = options;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  if (!Number.isSafeInteger(attempts) || attempts < 1) {
    throw new ConfigError(
      `startWorker(): \`attempts\` must be a positive integer, got ${JSON.stringify(attempts)}.`,
      { path: 'attempts' },
    );
  }
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
  const cap = checkBudgets('startWorker()', options.budgets);
  const limit =
    cap === undefined ? undefined : tenantDayLimits(store, cap, (id) => sessionOwner(store, id));
  const runs = new WorkerRuns(workflow, store, dispatcher, handOver.signal, limit);
  const queue = queueNameOf(workflow);
  const consumer = await dispatcher.consume(
    queue,
    (job, meta) =>
      runJobAttempts(workflow, store, runs, job, dispatcher, handOver.signal, {
        attempts,
        log,
        name: meta?.id ?? job.inputId ?? 'without input',
      }),
    {
      concurrency,
      // The lease a running session holds, renewed every second: none on a session whose job is
      // taken means that job's worker died (or never reached the session).
      running: async (id) => (await store.leaseHolder(id)) !== null,
    },
  );
  // The servers learn from these that some worker serves the queue (and which queues are served).
  const served = presenceOf(queueOf(dispatcher, queue));
  const present = () => void dispatcher.announce(served).catch(() => {});
  present();
  const presence = setInterval(present, PRESENCE_MS);
  presence.unref();
  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        clearInterval(presence);
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

/** A job that cannot run: its error, as the client waiting on it is told. */
class JobFailed extends Error {
  override readonly name = 'JobFailed';
}

/**
 * Makes a job's run, trying again (after 200 ms, then twice as long each time) while it fails,
 * `attempts` times in all; then the job fails for good: the worker logs one line, and the server
 * that queued the input reads why and tells its client.
 */
async function runJobAttempts(
  workflow: ServedWorkflow,
  store: CheckpointStore,
  runs: WorkerRuns,
  job: RunJob,
  dispatcher: Dispatcher,
  handOver: AbortSignal,
  options: { attempts: number; log: (line: string) => void; name: string },
): Promise<JobOutcome> {
  let reason = '';
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    try {
      return await runJob(workflow, store, runs, job, dispatcher, handOver);
    } catch (error) {
      if (retried(error)) return { done: false, retryMs: BUSY_RETRY_MS };
      reason = firstLine(error);
    }
    // A worker closing hands the job back (another worker makes the attempts left).
    if (handOver.aborted) return { done: false, retryMs: 0 };
    if (attempt < options.attempts) {
      await sleep(FIRST_BACKOFF_MS * 2 ** (attempt - 1), undefined, { ref: false });
    }
  }
  const id = job.sessionId;
  options.log(
    `Baton worker: job ${options.name} of session ${JSON.stringify(id)} failed after ` +
      `${options.attempts} attempt${options.attempts === 1 ? '' : 's'}: ${reason}`,
  );
  if (job.inputId !== null) {
    await store
      .acquireLease(outcomeKey(job.inputId), failedOutcome(reason), OUTCOME_TTL_MS)
      .catch(() => false);
  }
  // The server that queued the input waits for this outcome: wake it now.
  await dispatcher.announce(id).catch(() => {});
  return { done: false, failed: reason };
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}

/**
 * Makes one job's run; says when to try again instead (its session is busy elsewhere, or this
 * worker is closing: `handOver`). Throws what makes the attempt fail.
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
    if (last.kind === 'error') throw new JobFailed(last.message, { cause: last.error });
    return { done: true };
  } catch (error) {
    if (retried(error)) return { done: false, retryMs: BUSY_RETRY_MS };
    throw error;
  }
}

/**
 * Errors that put a job back without counting as a failed attempt: another worker holds the
 * session or took its input first, or the store is out of reach. A log that cannot be read, a
 * session this workflow cannot take over, an input refused: failed attempts.
 */
function retried(error: unknown): boolean {
  return (
    error instanceof SessionBusyError ||
    // Another attempt took the input between this one's look at the log and its lease: the next
    // attempt finds it there and goes on from the log.
    error instanceof InputTaken ||
    (error instanceof CheckpointError && error.writing) ||
    error instanceof StoreUnavailableError
  );
}
