// Shared builders for the independent workers suite (API.md §16), public API only.
//
// "Machines" are in-process: each has its own store object (on one shared PostgreSQL table or
// Redis key prefix), its own dispatcher and its own workflow object built from the same
// participants, so nothing but PostgreSQL/Redis connects them. Each machine's agents label their
// answers with the machine's name and count their model calls, so a test knows exactly who ran
// what.
import { randomBytes } from 'node:crypto';

import { Redis } from 'ioredis';
import pg from 'pg';

import {
  Agent,
  BullMQDispatcher,
  type CheckpointStore,
  HandoffBuilder,
  type HandoffWorkflow,
  type ModelRequest,
  type ModelResult,
  PgBossDispatcher,
  PostgresCheckpointStore,
  RedisCheckpointStore,
  ScriptedChatClient,
  serve,
  speakerOf,
  startWorker,
  TextMentionTermination,
} from '../../../src/index.js';
import { dropStatement } from '../../../src/checkpoint/postgres-sql.js';

export const DATABASE_URL =
  process.env.BATON_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.BATON_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const REDIS = { host: '127.0.0.1', port: 6379 };

export const unique = () => randomBytes(5).toString('hex');

export type Dispatcher = PgBossDispatcher | BullMQDispatcher;
export type Kind = 'pg-boss' | 'bullmq';
export interface Worker {
  close(): Promise<void>;
}
export type Handler = ReturnType<typeof serve>;

/** Everything a test opened, closed in reverse order by `closeAll()`. */
const opened: (() => Promise<unknown>)[] = [];
export function track<T>(thing: T, close: (t: T) => Promise<unknown>): T {
  opened.push(() => close(thing));
  return thing;
}
export async function closeAll(): Promise<void> {
  const errors: unknown[] = [];
  for (const close of opened.splice(0).reverse()) {
    await close().catch((error: unknown) => errors.push(error));
  }
  if (errors.length > 0) throw errors[0];
}

/**
 * One backend: a store kind and a dispatcher kind that several machines share, under names no
 * other test uses (table / key prefix / queue).
 */
export class Backend {
  readonly id = unique();
  readonly table = `baton_wk_${this.id}`;
  readonly keyPrefix = `baton-wk-${this.id}:`;
  readonly queue = `baton-wk-${this.id}`;
  readonly kind: Kind;
  constructor(kind: Kind) {
    this.kind = kind;
  }

  /** A store object of a new machine on the shared table / prefix. */
  store(): CheckpointStore {
    const store =
      this.kind === 'pg-boss'
        ? new PostgresCheckpointStore({ connectionString: DATABASE_URL, table: this.table })
        : new RedisCheckpointStore({ url: REDIS_URL, keyPrefix: this.keyPrefix });
    return track(store, (s) => s.close());
  }

  /** A dispatcher of a new machine on the shared queue (`queue: null` for the default name). */
  dispatcher(queue: string | null = this.queue): Dispatcher {
    const options = queue === null ? {} : { queue };
    // A pool of 3, not pg-boss's 10: these suites run beside others on a PostgreSQL of 100.
    const dispatcher =
      this.kind === 'pg-boss'
        ? new PgBossDispatcher({ connectionString: DATABASE_URL }, { ...options, max: 3 })
        : new BullMQDispatcher({ connection: REDIS }, options);
    return track(dispatcher, (d) => d.close());
  }

  /** The `--queue` URL of `baton worker` for this backend. */
  get queueUrl(): string {
    return this.kind === 'pg-boss' ? DATABASE_URL : REDIS_URL;
  }

  /** Drops the table / keys the tests made. */
  async drop(): Promise<void> {
    if (this.kind === 'pg-boss') {
      const admin = new pg.Pool({ connectionString: DATABASE_URL });
      await admin.query(dropStatement(this.table));
      await admin.end();
      return;
    }
    const admin = new Redis(REDIS_URL);
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${this.keyPrefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await admin.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    await admin.quit();
  }
}

/** A gate a scripted model call waits at; `started` resolves when a call reached it. */
export class Gate {
  #open!: () => void;
  readonly opened = new Promise<void>((resolve) => (this.#open = resolve));
  #reached!: () => void;
  readonly started = new Promise<void>((resolve) => (this.#reached = resolve));
  async pass(): Promise<void> {
    this.#reached();
    await this.opened;
  }
  open(): void {
    this.#open();
  }
}

const zero = { promptTokens: 0, completionTokens: 0 };
let callSeq = 0;

/** The customer's latest text in a model request (other agents reach a model as user turns too). */
export const lastUser = (request: ModelRequest) =>
  String(request.messages.filter((m) => speakerOf(m) === 'user').at(-1)?.content ?? '');

/** Model calls of one machine, per agent. */
export interface Counts {
  triage: number;
  billing: number;
}

export interface DeskOptions {
  store: CheckpointStore;
  /** The machine's name: billing answers `<label>: <customer text>`. */
  label: string;
  /** The workflow's name (the default queue is `baton.<name>`). */
  name: string;
  /** Where the gate holds: triage's or billing's call for a customer text containing "slow". */
  gate?: { agent: 'triage' | 'billing'; gate: Gate };
}

/** triage (coordinator) always hands off to billing; billing answers `<label>: <text>` (a pause). */
export function desk(options: DeskOptions): { workflow: HandoffWorkflow; counts: Counts } {
  const counts: Counts = { triage: 0, billing: 0 };
  const held = async (agent: 'triage' | 'billing', request: ModelRequest) => {
    if (options.gate?.agent === agent && lastUser(request).includes('slow')) {
      await options.gate.gate.pass();
    }
  };
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient(async (request): Promise<ModelResult> => {
      counts.triage++;
      await held('triage', request);
      return {
        content: null,
        toolCalls: [
          { id: `h-${options.label}-${++callSeq}`, name: 'handoff_to_billing', arguments: '{}' },
        ],
        usage: zero,
      };
    }),
  });
  const billing = new Agent({
    name: 'billing',
    client: new ScriptedChatClient(async (request): Promise<ModelResult> => {
      counts.billing++;
      await held('billing', request);
      return { content: `${options.label}: ${lastUser(request)}`, toolCalls: [], usage: zero };
    }),
  });
  const workflow = new HandoffBuilder({ name: options.name, participants: [triage, billing] })
    .coordinator(triage)
    .withCheckpointing(options.store)
    .build();
  return { workflow, counts };
}

/**
 * A run that goes on by itself: billing, in autonomous mode, answers `<label> tick <n>` (n counts
 * ticks over every machine through `shared`) until `shared.stopAt`, where it answers
 * `<label> DONE <n>` and the condition `TextMentionTermination("DONE", {sources: ["billing"]})`
 * stops the run. A customer text containing "next" makes billing answer `DONE` at once.
 * `hold(n)` may make tick n wait.
 */
export interface Ticks {
  n: number;
  stopAt: number;
}
export function ticker(options: {
  store: CheckpointStore;
  label: string;
  name: string;
  shared: Ticks;
  /** May make this machine's tick n wait (`signal`: the model call's). */
  hold?: (n: number, signal: AbortSignal | undefined) => Promise<void>;
}) {
  const calls = { billing: 0 };
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient((): ModelResult => ({
      content: null,
      toolCalls: [
        { id: `h-${options.label}-${++callSeq}`, name: 'handoff_to_billing', arguments: '{}' },
      ],
      usage: zero,
    })),
  });
  const billing = new Agent({
    name: 'billing',
    client: new ScriptedChatClient(async (request): Promise<ModelResult> => {
      calls.billing++;
      const customer = request.messages
        .filter((m) => m.role === 'user')
        .map((m) => String(m.content ?? ''));
      const n = ++options.shared.n;
      await options.hold?.(n, request.signal);
      await new Promise((resolve) => setTimeout(resolve, 10));
      const done = n >= options.shared.stopAt || customer.some((c) => c.includes('next'));
      return {
        content: `${options.label} ${done ? 'DONE' : 'tick'} ${n}`,
        toolCalls: [],
        usage: zero,
      };
    }),
  });
  const workflow = new HandoffBuilder({ name: options.name, participants: [triage, billing] })
    .coordinator(triage)
    .withAutonomousMode({ agents: ['billing'], turnLimits: { billing: 10_000 } })
    .withMaxTurns(10_000)
    .withTerminationCondition(new TextMentionTermination('DONE', { sources: ['billing'] }))
    .withCheckpointing(options.store)
    .build();
  return { workflow, calls };
}

export const TOKEN = 'workers-token';
export const authenticate = (request: Request) =>
  request.headers.get('authorization') === `Bearer ${TOKEN}` ? { id: 'alice' } : null;

/** A request to `handler.fetch` as alice. */
export function request(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return new Request(`http://baton.test${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export interface Answer {
  status: number;
  headers: Headers;
  json: unknown;
  text: string;
}
export async function answer(response: Response | Promise<Response>): Promise<Answer> {
  const r = await response;
  const text = await r.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, json, text };
}

/** Polls `probe` until it holds (no time assertion: only the test's own timeout). */
export async function until(probe: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await probe())) await new Promise((resolve) => setTimeout(resolve, 25));
}

// The SSE reader the §15 suite wrote for the same wire.
export { type SseEvent, sseEvents } from '../serve/support.js';

/** Starts a worker and closes it at the end of the test (unless the test closed it). */
export async function worker(
  workflow: HandoffWorkflow,
  options: Parameters<typeof startWorker>[1],
): Promise<Worker> {
  const started = await startWorker(workflow, options);
  let closed: Promise<void> | undefined;
  const once: Worker = { close: () => (closed ??= started.close()) };
  return track(once, (w) => w.close());
}

/** A server handler, closed at the end of the test. */
export function server(
  workflow: HandoffWorkflow,
  options: NonNullable<Parameters<typeof serve>[1]>,
): Handler {
  return track(serve(workflow, options), (h) => h.close());
}
