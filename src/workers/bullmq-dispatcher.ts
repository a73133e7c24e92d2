import { createHash } from 'node:crypto';

import { ConfigError } from '../errors.js';
import { isRecord } from '../unknown-value.js';
import {
  type Consumer,
  type Dispatcher,
  type JobOutcome,
  hasFunctions,
  isRunJob,
  missingPeer,
  type RunJob,
} from './dispatcher.js';
import { RedisSubscribers } from './redis-subscribers.js';

/** Redis connection options as ioredis takes them (`{host, port, password, db}`, ...). */
export type BullMQConnection = Record<string, unknown>;

/** Options of the queue engine as Baton sets it up. */
export interface BullMQDispatcherOptions {
  /** The queue's name. @default "baton.<workflow name>" */
  queue?: string;
  /**
   * How long a worker that died keeps its job before BullMQ hands it to another worker (BullMQ's
   * `lockDuration`; its stalled-job check runs every half of it): a session waits up to about 1.5
   * times this after its worker dies. Less is faster recovery; more spares a worker that only
   * stalls from having its turn handed over, and renews the lock less often. @default 5000
   */
  lockDurationMs?: number;
  /** How long a job waits before it is tried again while an earlier input of its session runs. */
  retryDelayMs?: number;
}

interface RedisLike {
  get(key: string): Promise<string | null>;
  hget(key: string, field: string): Promise<string | null>;
  hlen(key: string): Promise<number>;
  eval(script: string, keys: number, ...args: (string | number)[]): Promise<unknown>;
  set(key: string, value: string, ...args: (string | number)[]): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
  subscribe(channel: string): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  quit(): Promise<unknown>;
}

/** The channel on which workers announce steps (the message is the session id). */
const CHANNEL = 'baton:steps';
/** The channel of the drafts of steps being made (the message is the draft as JSON). */
const DRAFTS = 'baton:drafts';
interface BullJob {
  id?: string | undefined;
  data: unknown;
  moveToDelayed(timestamp: number, token?: string): Promise<void>;
}
interface BullModule {
  Queue: new (
    name: string,
    opts: object,
  ) => {
    add(name: string, data: object, opts: object): Promise<unknown>;
    getJob(id: string): Promise<unknown>;
    close(): Promise<void>;
  };
  Worker: new (
    name: string,
    processor: (job: BullJob, token?: string) => Promise<unknown>,
    opts: object,
  ) => { close(force?: boolean): Promise<void>; on(event: string, fn: () => void): unknown };
  DelayedError: new () => Error;
  /** Fails a job at once, whatever attempts it has left. */
  UnrecoverableError: new (message: string) => Error;
}

type RedisClass = new (options: object) => RedisLike;

/** A job in the order of its session: the number the queue gave it. */
interface OrderedJob extends RunJob {
  readonly seq: number;
}

/*
 * The two counters of a session (`baton:<queue>:seq:<id>`, `baton:<queue>:done:<id>`) do not
 * expire: one expiring before the other would stall or skip the session's next input. They are
 * two small keys per session, with a hash of the inputs numbered and not yet done
 * (`baton:<queue>:inputs:<id>`), emptied as they are done.
 */

/** Takes the session's next number and keeps the input under it, in one step. */
const RESERVE = `local seq = redis.call('INCR', KEYS[1])
redis.call('HSET', KEYS[2], seq, ARGV[1])
return seq`;
/** Marks the input `ARGV[1]` done and lets go of what was kept of it. */
const DONE = `redis.call('SET', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1`;
/** BullMQ's options of a run's job. */
const JOB_OPTIONS = {
  attempts: 100_000,
  backoff: { type: 'fixed', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: 1000,
};

/**
 * Runs go through BullMQ on Redis. Each input of a session gets the next number of
 * that session (a Redis counter); a worker runs a job only when every earlier input of its
 * session is done, and otherwise moves it to the delayed set to be tried again shortly — BullMQ's
 * per-group ordering is not in its free edition. Baton's lease keeps two workers from running one
 * session at once; a worker that died loses its lock and BullMQ hands the job to another.
 */
export class BullMQDispatcher implements Dispatcher {
  readonly engine = 'bullmq';
  readonly queue: string | undefined;
  readonly #connection: BullMQConnection;
  readonly #lockDurationMs: number;
  readonly #retryDelayMs: number;
  #loaded: Promise<{ bull: BullModule; redis: RedisLike; Redis: RedisClass }> | undefined;
  readonly #subscribers = new RedisSubscribers(async () => {
    const { Redis } = await this.#load();
    return new Redis(this.#connection);
  });
  readonly #queues = new Map<string, InstanceType<BullModule['Queue']>>();
  readonly #workers = new Set<{ close(force?: boolean): Promise<void> }>();

  constructor(target: { connection: BullMQConnection }, options: BullMQDispatcherOptions = {}) {
    const where = 'BullMQDispatcher';
    if (!isRecord(target) || !isRecord(target.connection)) {
      throw new ConfigError(
        `${where}: give { connection: { host, port } } (ioredis options for the Redis server).`,
        { path: 'connection' },
      );
    }
    const { queue, lockDurationMs = 5000, retryDelayMs = 100 } = options ?? {};
    if (queue !== undefined && (typeof queue !== 'string' || !/^[\w.-]{1,100}$/.test(queue))) {
      throw new ConfigError(
        `${where}: \`queue\` must be letters, digits, ".", "-" or "_", got ${JSON.stringify(queue)}.`,
        { path: 'queue' },
      );
    }
    for (const [name, value] of [
      ['lockDurationMs', lockDurationMs],
      ['retryDelayMs', retryDelayMs],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new ConfigError(
          `${where}: \`${name}\` must be a positive integer (milliseconds), got ${JSON.stringify(value)}.`,
          { path: name },
        );
      }
    }
    this.queue = queue;
    this.#connection = { ...target.connection, maxRetriesPerRequest: null };
    this.#lockDurationMs = lockDurationMs;
    this.#retryDelayMs = retryDelayMs;
  }

  async enqueue(queue: string, job: RunJob): Promise<void> {
    const name = this.queue ?? queue;
    const { redis } = await this.#load();
    const id = job.sessionId;
    // The number and the input are kept together: should this process die before the job is
    // added, the session's next job adds it (below), so no number is left without its job.
    const seq = Number(
      await redis.eval(RESERVE, 2, seqKey(name, id), inputsKey(name, id), JSON.stringify(job)),
    );
    await this.#queueOf(name, await this.#load()).add(
      'run',
      { ...job, seq },
      { ...JOB_OPTIONS, jobId: jobIdOf(id, seq) },
    );
  }

  async consume(
    queue: string,
    handler: (job: RunJob, meta?: { readonly id: string }) => Promise<JobOutcome>,
    options: { concurrency: number },
  ): Promise<Consumer> {
    const name = this.queue ?? queue;
    const { bull, redis } = await this.#load();
    const retry = async (job: BullJob, token: string | undefined, ms: number): Promise<never> => {
      await job.moveToDelayed(Date.now() + ms, token);
      throw new bull.DelayedError();
    };
    const worker = new bull.Worker(
      name,
      async (job, token) => {
        const data = job.data;
        if (!isRunJob<OrderedJob>(data)) return null;
        const done = Number((await redis.get(doneKey(name, data.sessionId))) ?? '0');
        if (data.seq <= done) return null;
        if (data.seq > done + 1) {
          await this.#fillGap(name, data.sessionId, done + 1);
          return retry(job, token, this.#retryDelayMs);
        }
        const outcome = await handler(data, { id: job.id ?? jobIdOf(data.sessionId, data.seq) });
        if ('retryMs' in outcome) return retry(job, token, outcome.retryMs);
        const id = data.sessionId;
        // Failed for good or done, the session's next inputs go on.
        await redis.eval(DONE, 2, doneKey(name, id), inputsKey(name, id), data.seq);
        if ('failed' in outcome) throw new bull.UnrecoverableError(outcome.failed);
        return null;
      },
      {
        connection: this.#connection,
        concurrency: options.concurrency,
        lockDuration: this.#lockDurationMs,
        stalledInterval: Math.max(1000, Math.floor(this.#lockDurationMs / 2)),
        maxStalledCount: 100_000,
      },
    );
    worker.on('error', () => {});
    this.#workers.add(worker);
    return {
      stop: async () => {
        this.#workers.delete(worker);
        await worker.close();
      },
    };
  }

  /**
   * An input stays in its session's hash from the moment it is numbered until its job is done, so
   * a job that is waiting, delayed, running or held by a dead worker keeps the hash non-empty: one
   * read, whatever `held` says. So would a job BullMQ gave up on after its 100 000 attempts, or
   * one whose server died before adding it, until the session's next input adds it (a stream then
   * waits until its client leaves).
   */
  async pending(queue: string, sessionId: string): Promise<boolean> {
    const { redis } = await this.#load();
    return (await redis.hlen(inputsKey(this.queue ?? queue, sessionId))) > 0;
  }

  async announce(sessionId: string): Promise<void> {
    const { redis } = await this.#load();
    await redis.publish(CHANNEL, sessionId);
  }

  listen(listener: (sessionId: string) => void): Promise<() => Promise<void>> {
    return this.#subscribers.subscribe(CHANNEL, listener);
  }

  async publishDraft(text: string): Promise<void> {
    const { redis } = await this.#load();
    await redis.publish(DRAFTS, text);
  }

  listenDrafts(listener: (text: string) => void): Promise<() => Promise<void>> {
    return this.#subscribers.subscribe(DRAFTS, listener);
  }

  async close(): Promise<void> {
    await this.#subscribers.close();
    const loaded = this.#loaded;
    this.#loaded = undefined;
    await Promise.all([...this.#workers].map((w) => w.close(true)));
    this.#workers.clear();
    await Promise.all([...this.#queues.values()].map((q) => q.close()));
    this.#queues.clear();
    if (loaded !== undefined) await (await loaded).redis.quit();
  }

  /**
   * Adds the job of the session's input `seq` when a process numbered the input and died before it
   * added the job. Its job id is fixed, so one added meanwhile is not added twice.
   */
  async #fillGap(name: string, sessionId: string, seq: number): Promise<void> {
    const loaded = await this.#load();
    const queue = this.#queueOf(name, loaded);
    const jobId = jobIdOf(sessionId, seq);
    const there = await queue.getJob(jobId);
    if (there !== undefined && there !== null) return;
    const kept = await loaded.redis.hget(inputsKey(name, sessionId), String(seq));
    if (kept === null) return;
    const job: unknown = JSON.parse(kept);
    if (!isRunJob(job)) return;
    await queue.add('run', { ...job, seq }, { ...JOB_OPTIONS, jobId });
  }

  #queueOf(name: string, { bull }: { bull: BullModule }): InstanceType<BullModule['Queue']> {
    let queue = this.#queues.get(name);
    if (queue === undefined) {
      queue = new bull.Queue(name, { connection: this.#connection });
      this.#queues.set(name, queue);
    }
    return queue;
  }

  #load(): Promise<{ bull: BullModule; redis: RedisLike; Redis: RedisClass }> {
    if (this.#loaded !== undefined) return this.#loaded;
    this.#loaded = (async () => {
      let bull: BullModule;
      let Redis: RedisClass;
      try {
        const [bullmq, ioredis]: unknown[] = await Promise.all([
          import('bullmq'),
          import('ioredis'),
        ]);
        if (
          !hasFunctions<BullModule>(bullmq, [
            'Queue',
            'Worker',
            'DelayedError',
            'UnrecoverableError',
          ])
        ) {
          throw new ConfigError(
            'BullMQDispatcher: the installed "bullmq" has no Queue and Worker.',
          );
        }
        if (!hasFunctions<{ Redis: RedisClass }>(ioredis, ['Redis'])) {
          throw new ConfigError('BullMQDispatcher: the installed "ioredis" has no Redis client.');
        }
        bull = bullmq;
        Redis = ioredis.Redis;
      } catch (error) {
        if (error instanceof ConfigError) throw error;
        throw missingPeer('bullmq', 'BullMQDispatcher', error);
      }
      const redis = new Redis(this.#connection);
      redis.on('error', () => {});
      return { bull, redis, Redis };
    })();
    this.#loaded.catch(() => (this.#loaded = undefined));
    return this.#loaded;
  }
}

function seqKey(queue: string, sessionId: string): string {
  return `baton:${queue}:seq:${sessionId}`;
}

function doneKey(queue: string, sessionId: string): string {
  return `baton:${queue}:done:${sessionId}`;
}

function inputsKey(queue: string, sessionId: string): string {
  return `baton:${queue}:inputs:${sessionId}`;
}

/** The job id of a session's input `seq` (BullMQ's custom ids hold no ":"). */
function jobIdOf(sessionId: string, seq: number): string {
  return `${createHash('sha256').update(sessionId, 'utf8').digest('hex').slice(0, 32)}-${seq}`;
}
