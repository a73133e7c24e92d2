import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import { internalKey } from '../checkpoint/session-id.js';
import type { Task } from '../engine/runnable.js';
import { ConfigError } from '../errors.js';
import { isRecord } from '../unknown-value.js';

/**
 * One queued input of a session: the worker that takes it runs `task` on the session,
 * or — when an earlier attempt already committed the input (`inputId`) — finishes that run.
 */
export interface RunJob {
  readonly sessionId: string;
  /** The input, as JSON (messages are plain objects); `null` continues the session. */
  readonly task: Task | null;
  /** The id of the input's (first) message, by which a retried job knows its input was taken. */
  readonly inputId: string | null;
  /** True when the input interrupts the run before it (`busy: "interrupt"`). */
  readonly interrupts?: boolean;
}

/**
 * What a worker's handler says of a job: done, to be tried again after `retryMs`, or failed for
 * good (`failed`: why), which the queue engine records as a failed job that is not retried.
 */
export type JobOutcome =
  | { readonly done: true }
  | { readonly done: false; readonly retryMs: number }
  | { readonly done: false; readonly failed: string };

/** How a worker takes jobs. */
export interface ConsumeOptions {
  /** How many jobs the handler runs at once. */
  readonly concurrency: number;
  /** True while some process holds the session's lease (it is running there). */
  readonly running?: (sessionId: string) => Promise<boolean>;
}

/** The jobs a dispatcher hands to one worker, until `stop()`. */
export interface Consumer {
  /** Takes no new jobs; resolves once the handlers running now have returned. */
  stop(): Promise<void>;
}

/**
 * A queue engine that carries runs from servers to workers. Jobs of one session are
 * handed out one after another in the order they were queued; a job whose worker died is handed out
 * again. `PgBossDispatcher` and `BullMQDispatcher` are the two adapters.
 */
export interface Dispatcher {
  /** The queue engine, for messages: `"pg-boss"` or `"bullmq"`. */
  readonly engine: string;
  /** The queue it was told to use, which wins over the one `enqueue()` and `consume()` name. */
  readonly queue?: string | undefined;
  /** Queues `job` on `queue` (the dispatcher's own `queue` option wins when given). */
  enqueue(queue: string, job: RunJob): Promise<void>;
  /**
   * Hands `queue`'s jobs to `handler`, at most `concurrency` at once. `running` says whether some
   * process holds a session's lease: a dispatcher may use it to hand over the job of a worker
   * that died sooner than its queue engine would.
   */
  consume(
    queue: string,
    handler: (job: RunJob, meta?: { readonly id: string }) => Promise<JobOutcome>,
    options: ConsumeOptions,
  ): Promise<Consumer>;
  /**
   * True while a job of the session is on `queue` and not done: waiting for a worker, or — unless
   * `held` is false — held by one, running or dead until the queue hands it to another. A server
   * follows a session's run until it ends, or until no job of it is left and no lease is held:
   * then nothing will resume it. `held: false` (the log shows no run going on) may be cheaper.
   */
  pending(queue: string, sessionId: string, held?: boolean): Promise<boolean>;
  /** Tells every server that the session committed a step (LISTEN/NOTIFY, or Redis pub/sub). */
  announce(sessionId: string): Promise<void>;
  /**
   * Calls `listener` with the session id of every step announced, by any process; resolves to a
   * function that stops listening. Servers still look at the store now and then without one.
   */
  listen(listener: (sessionId: string) => void): Promise<() => Promise<void>>;
  /**
   * Sends `text` (a draft of a step being made, as JSON) to every process listening for drafts,
   * on the queue engine's own channel; a draft may be dropped (the committed step repeats it).
   */
  publishDraft?(text: string): Promise<void>;
  /** Calls `listener` with the text of every draft published, by any process. */
  listenDrafts?(listener: (text: string) => void): Promise<() => Promise<void>>;
  /** Closes the connections it opened. */
  close(): Promise<void>;
}

/**
 * @throws ConfigError unless `store` is one several machines share: a dispatcher hands a session
 * to any worker, which must read what the others committed.
 */
export function checkSharedStore(store: CheckpointStore | undefined, where: string): void {
  if (store?.shared === true) return;
  throw new ConfigError(
    `${where}: a dispatcher hands each run to any worker, so the workflow needs a checkpoint store ` +
      'that every machine shares (PostgresCheckpointStore or RedisCheckpointStore); ' +
      (store === undefined
        ? 'it has none.'
        : `it has a ${store.constructor.name || 'store'}, which only this process sees.`),
    { path: 'dispatcher' },
  );
}

/** @throws ConfigError unless `value` is a dispatcher. */
export function checkDispatcher(value: unknown, where: string): Dispatcher {
  if (isDispatcher(value)) return value;
  throw new ConfigError(
    `${where}: \`dispatcher\` must be a PgBossDispatcher or a BullMQDispatcher.`,
    { path: 'dispatcher' },
  );
}

function isDispatcher(value: unknown): value is Dispatcher {
  return (
    isRecord(value) &&
    typeof value.enqueue === 'function' &&
    typeof value.consume === 'function' &&
    typeof value.close === 'function' &&
    typeof value.engine === 'string'
  );
}

/**
 * True when `value` has the functions `names` (an optional peer's module, checked where it is
 * loaded instead of typed by its package, which may not be installed).
 */
export function hasFunctions<T>(value: unknown, names: readonly string[]): value is T {
  return isRecord(value) && names.every((name) => typeof value[name] === 'function');
}

/** True for a job as `enqueue()` queued it (after its trip through the queue's JSON). */
export function isRunJob<T extends RunJob = RunJob>(value: unknown): value is T {
  return isRecord(value) && typeof value.sessionId === 'string';
}

/** The queue `dispatcher` uses for `queue`: its own `queue` option when given. */
export function queueOf(dispatcher: Dispatcher, queue: string): string {
  return dispatcher.queue ?? queue;
}

/** The default queue of a workflow: `baton.<workflow name>`. */
export function queueNameOf(workflow: unknown): string {
  const name = isRecord(workflow) && typeof workflow.name === 'string' ? workflow.name : '';
  const safe = name.replace(/[^\w.-]/g, '_');
  return `baton.${safe === '' ? 'workflow' : safe}`;
}

/** Turns a thrown value from an optional peer's import into a ConfigError saying what to install. */
export function missingPeer(pkg: string, who: string, error: unknown): ConfigError {
  const code = isRecord(error) ? error.code : undefined;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
    return new ConfigError(
      `${who} needs the optional peer dependency "${pkg}", which is not installed: npm install ${pkg}`,
    );
  }
  return new ConfigError(`${who}: loading "${pkg}" failed: ${String(error)}`);
}

/**
 * The lease key under which a worker leaves the error of a queued run that failed for the server
 * that queued it, as the key's owner: `failed:<error message>` (the step log keeps what the run
 * committed, not why it failed).
 */
export function outcomeKey(inputId: string): string {
  return internalKey('outcome', inputId);
}

/** How often a worker announces that it serves its queue (see `presenceOf`). */
export const PRESENCE_MS = 2000;

// Starts with a control character (PostgreSQL's NOTIFY takes any but NUL), which no id a client
// means to use holds; a session named so would only make a queue look served.
const PRESENCE_PREFIX = '\u0001baton.worker:';

/**
 * What a worker announces, every `PRESENCE_MS`, to say that it serves `queue`: a server that
 * hears none for its queue can tell its clients that no worker will take their inputs.
 */
export function presenceOf(queue: string): string {
  return `${PRESENCE_PREFIX}${queue}`;
}

/** The queue a presence announcement names, or undefined for a session's step. */
export function presenceQueue(announced: string): string | undefined {
  return announced.startsWith(PRESENCE_PREFIX)
    ? announced.slice(PRESENCE_PREFIX.length)
    : undefined;
}
