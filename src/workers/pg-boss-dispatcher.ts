import { listeningClient, loadPg, type PgClient } from './pg-notify.js';
import { ConfigError } from '../errors.js';
import { isRecord } from '../unknown-value.js';
import {
  type ConsumeOptions,
  type Consumer,
  type Dispatcher,
  type JobOutcome,
  hasFunctions,
  isRunJob,
  missingPeer,
  type RunJob,
} from './dispatcher.js';
import { watchForDeadWorkers } from './pg-boss-hand-over.js';
import { pendingJob } from './pg-boss-pending.js';

/** The part of a started `PgBoss` the dispatcher uses (typed here: pg-boss is an optional peer). */
export interface PgBossLike {
  createQueue(name: string, options?: Record<string, unknown>): Promise<void>;
  getQueue(name: string): Promise<unknown>;
  send(name: string, data: object, options?: Record<string, unknown>): Promise<string | null>;
  work(
    name: string,
    options: Record<string, unknown>,
    handler: (jobs: { id: string; retryCount: number; data: unknown }[]) => Promise<unknown>,
  ): Promise<string>;
  offWork(name: string, options?: { id?: string; wait?: boolean }): Promise<void>;
  fail(name: string, id: { id: string; retryCount: number }, data?: object): Promise<unknown>;
  getDb?(): { executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> };
  /** The jobs of a key, oldest first (pg-boss 12; absent from older versions). */
  findJobs?(
    name: string,
    options: { key: string; queued?: boolean; limit?: number; after?: string },
  ): Promise<{ id: string; state: string }[]>;
  stop(options?: { graceful?: boolean; timeout?: number; close?: boolean }): Promise<void>;
  on?(event: 'error', listener: (error: unknown) => void): unknown;
}

interface PgBossModule {
  PgBoss: new (options: object) => PgBossLike & { start(): Promise<unknown> };
}

/** The channel on which workers announce steps (the payload is the session id). */
const CHANNEL = 'baton_steps';
/** The channel of the drafts of steps being made (the payload is the draft as JSON). */
const DRAFTS = 'baton_drafts';

/** Options of the queue engine as Baton sets it up. */
export interface PgBossDispatcherOptions {
  /** The queue's name. @default "baton.<workflow name>" */
  queue?: string;
  /**
   * How long a worker that died keeps its job before a live worker hands it to another: the job's
   * heartbeat (which its worker refreshes every second) has stood still this long, and no process
   * holds the session's lease. A session waits about this plus 2 s after its worker dies. Less is
   * faster recovery; more spares a worker that only stalls (a process frozen for seconds) from
   * having its turn handed over — Baton's lease keeps it from committing over the new one. The
   * live workers look for such jobs every second. @default 4
   */
  handOverSeconds?: number;
  /**
   * pg-boss's own bound on the same, which holds when no live worker is left to look: the queue's
   * `heartbeatSeconds` (at least 10), checked by pg-boss's monitor pass every second. @default 10
   */
  heartbeatSeconds?: number;
  /**
   * How many connections pg-boss's pool opens at most (with `{ connectionString }`). A server that
   * only queues needs few; a worker's `concurrency` wants about as many. @default 10 (pg-boss's)
   */
  max?: number;
}

/** A queued job that is retried, as pg-boss sees it: the delay comes from the queue's retryDelay. */
class RetryLater extends Error {
  constructor(sessionId: string) {
    super(`Session "${sessionId}" is busy elsewhere; the job is tried again.`);
    this.name = 'RetryLater';
  }
}

/**
 * Runs go through pg-boss on PostgreSQL: one queue with the `key_strict_fifo`
 * policy keyed by session id, so the inputs of one session are handed out one after another in
 * the order queued while sessions run in parallel. A worker that dies stops heartbeating; pg-boss
 * then retries its job on another worker. Workers are woken by LISTEN/NOTIFY, not by polling.
 */
export class PgBossDispatcher implements Dispatcher {
  readonly engine = 'pg-boss';
  readonly queue: string | undefined;
  readonly #heartbeatSeconds: number;
  readonly #handOverSeconds: number;
  readonly #max: number;
  readonly #given: PgBossLike | undefined;
  readonly #connectionString: string | undefined;
  #boss: Promise<PgBossLike> | undefined;
  readonly #queues = new Map<string, Promise<void>>();
  #pool: Promise<Omit<PgClient, 'connect'> | undefined> | undefined;
  readonly #listeners = new Set<PgClient>();

  constructor(
    target: { connectionString: string } | { boss: PgBossLike },
    options: PgBossDispatcherOptions = {},
  ) {
    const where = 'PgBossDispatcher';
    if ('boss' in target && isRecord(target.boss) && typeof target.boss.send === 'function') {
      this.#given = target.boss;
    } else if ('connectionString' in target && typeof target.connectionString === 'string') {
      this.#connectionString = target.connectionString;
    } else {
      throw new ConfigError(
        `${where}: give { connectionString: "postgres://…" } or { boss } (a started PgBoss).`,
        { path: 'connectionString' },
      );
    }
    const { queue, heartbeatSeconds = 10, handOverSeconds = 4, max = 10 } = options ?? {};
    if (queue !== undefined && (typeof queue !== 'string' || !/^[\w.-]{1,100}$/.test(queue))) {
      throw new ConfigError(
        `${where}: \`queue\` must be letters, digits, ".", "-" or "_", got ${JSON.stringify(queue)}.`,
        { path: 'queue' },
      );
    }
    this.queue = queue;
    this.#heartbeatSeconds = atLeast(where, 'heartbeatSeconds', heartbeatSeconds, 10);
    this.#handOverSeconds = atLeast(where, 'handOverSeconds', handOverSeconds, 2);
    this.#max = atLeast(where, 'max', max, 1);
  }

  async enqueue(queue: string, job: RunJob): Promise<void> {
    const name = this.queue ?? queue;
    const boss = await this.#queue(name);
    await boss.send(name, { ...job }, { singletonKey: job.sessionId });
  }

  async consume(
    queue: string,
    handler: (job: RunJob, meta?: { readonly id: string }) => Promise<JobOutcome>,
    options: ConsumeOptions,
  ): Promise<Consumer> {
    const name = this.queue ?? queue;
    const boss = await this.#queue(name);
    let stopping = false;
    /** The attempts this worker is making (`id:retryCount`). */
    const making = new Set<string>();
    const id = await boss.work(
      name,
      {
        localConcurrency: options.concurrency,
        batchSize: 1,
        pollingIntervalSeconds: 0.5,
        notifyPollingIntervalSeconds: 0.5,
        // The heartbeat the other workers watch (pg-boss's default is every half of heartbeatSeconds).
        heartbeatRefreshSeconds: 1,
      },
      async (jobs) => {
        for (const job of jobs) {
          const data = job.data;
          if (!isRunJob(data)) continue;
          if (stopping) throw new RetryLater(data.sessionId);
          const attempt = `${job.id}:${job.retryCount}`;
          making.add(attempt);
          try {
            const outcome = await handler(data, { id: job.id });
            if ('retryMs' in outcome) throw new RetryLater(data.sessionId);
            // Failed for good: the job is completed with why as its output, not failed, since a
            // failed job would hold up the session's later inputs (key_strict_fifo).
            if ('failed' in outcome) return { failed: outcome.failed };
          } finally {
            making.delete(attempt);
          }
        }
      },
    );
    const running = options.running;
    const query = this.#sql(boss);
    const stopWatch =
      running === undefined || query === undefined
        ? async () => {}
        : watchForDeadWorkers({
            queue: name,
            query,
            fail: async (attempt) => {
              await boss.fail(name, attempt, { message: 'its worker stopped (handed over)' });
            },
            running,
            mine: (attempt) => making.has(`${attempt.id}:${attempt.retryCount}`),
            seconds: this.#handOverSeconds,
          });
    return {
      async stop() {
        stopping = true;
        await stopWatch();
        await boss.offWork(name, { id, wait: true });
      },
    };
  }

  /** See `pendingJob()`: on pg-boss, a held job costs a read of the session's done jobs too. */
  async pending(queue: string, sessionId: string, held = true): Promise<boolean> {
    const name = this.queue ?? queue;
    return pendingJob(await this.#queue(name), name, sessionId, held);
  }

  announce(sessionId: string): Promise<void> {
    return this.#notify(CHANNEL, sessionId);
  }

  listen(listener: (sessionId: string) => void): Promise<() => Promise<void>> {
    return this.#listenOn(CHANNEL, listener);
  }

  /** A draft over NOTIFY's 8000 bytes is dropped: the committed step repeats it. */
  async publishDraft(text: string): Promise<void> {
    if (Buffer.byteLength(text) < 7900) await this.#notify(DRAFTS, text);
  }

  listenDrafts(listener: (text: string) => void): Promise<() => Promise<void>> {
    return this.#listenOn(DRAFTS, listener);
  }

  async #notify(channel: string, payload: string): Promise<void> {
    // Through the boss's own pool (no connections of their own; a boss passed in announces too).
    const sql = this.#sql(await this.#started());
    if (sql !== undefined) await sql('SELECT pg_notify($1, $2)', [channel, payload]);
    else await (await this.#announcer())?.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  async #listenOn(
    channel: string,
    listener: (payload: string) => void,
  ): Promise<() => Promise<void>> {
    const connectionString = this.#connectionString;
    if (connectionString === undefined) {
      throw new ConfigError('PgBossDispatcher: listening needs { connectionString }.');
    }
    const client = await listeningClient(connectionString, channel, listener);
    this.#listeners.add(client);
    return async () => {
      if (this.#listeners.delete(client)) await client.end().catch(() => {});
    };
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    const listeners = [...this.#listeners];
    this.#listeners.clear();
    await Promise.all(listeners.map((c) => c.end().catch(() => {})));
    if (pool !== undefined) await (await pool)?.end().catch(() => {});
    const boss = this.#boss;
    this.#boss = undefined;
    if (boss === undefined || this.#given !== undefined) return;
    await (await boss).stop({ graceful: false, close: true, timeout: 1000 });
  }

  /** Runs SQL on pg-boss's database, through the boss's own pool (no connection of its own). */
  #sql(boss: PgBossLike): ((text: string, values: unknown[]) => Promise<unknown[]>) | undefined {
    const db = boss.getDb?.();
    if (db === undefined) return undefined;
    return async (text, values) => (await db.executeSql(text, values)).rows;
  }

  #announcer(): Promise<Omit<PgClient, 'connect'> | undefined> {
    const connectionString = this.#connectionString;
    if (connectionString === undefined) return Promise.resolve(undefined);
    this.#pool ??= loadPg().then((pg) => {
      const pool = new pg.Pool({ connectionString, max: 2 });
      pool.on('error', () => {});
      return pool;
    });
    return this.#pool;
  }

  /** The boss, with `name` made (once) with the per-session FIFO policy. */
  async #queue(name: string): Promise<PgBossLike> {
    const boss = await this.#started();
    let made = this.#queues.get(name);
    if (made === undefined) {
      made = (async () => {
        if ((await boss.getQueue(name)) !== null) return;
        await boss.createQueue(name, {
          policy: 'key_strict_fifo',
          notify: true,
          retryLimit: 100_000,
          retryDelay: 1,
          heartbeatSeconds: this.#heartbeatSeconds,
        });
      })();
      this.#queues.set(name, made);
      made.catch(() => this.#queues.delete(name));
    }
    await made;
    return boss;
  }

  #started(): Promise<PgBossLike> {
    if (this.#boss !== undefined) return this.#boss;
    const given = this.#given;
    const connectionString = this.#connectionString;
    this.#boss =
      given !== undefined
        ? Promise.resolve(given)
        : (async () => {
            let loaded: unknown;
            try {
              loaded = await import('pg-boss');
            } catch (error) {
              throw missingPeer('pg-boss', 'PgBossDispatcher', error);
            }
            if (!hasFunctions<PgBossModule>(loaded, ['PgBoss'])) {
              throw new ConfigError(
                'PgBossDispatcher: the installed "pg-boss" has no PgBoss class.',
              );
            }
            const boss = new loaded.PgBoss({
              connectionString,
              max: this.#max,
              useListenNotify: true,
              monitorIntervalSeconds: 1,
              superviseIntervalSeconds: 1,
            });
            boss.on?.('error', () => {});
            await boss.start();
            return boss;
          })();
    this.#boss.catch(() => (this.#boss = undefined));
    return this.#boss;
  }
}

/** `value` of option `name`, an integer of at least `least`; else a ConfigError naming it. */
function atLeast(where: string, name: string, value: number, least: number): number {
  if (Number.isInteger(value) && value >= least) return value;
  throw new ConfigError(
    `${where}: \`${name}\` must be an integer of at least ${least}, got ${JSON.stringify(value)}.`,
    { path: name },
  );
}
