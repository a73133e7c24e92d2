// One worker process of test/integration/postgres-race.test.ts. It races the other workers over
// the same sessions in PostgreSQL until every session has terminated, then prints what it saw.
//
// Run by the test as: node --import <tsx> test/support/race-worker.ts '<RaceWorkerConfig as JSON>'
// It prints `ready` once connected, waits for a line `go` on stdin, and ends with one line
// `result <RaceWorkerStats as JSON>` (or exits non-zero with the reason on stderr).
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

import { z } from 'zod';

import {
  Agent,
  type AgentMessage,
  type CheckpointRecord,
  type CheckpointStore,
  HandoffBuilder,
  type LLMMessage,
  MaxMessageTermination,
  type ModelRequest,
  PostgresCheckpointStore,
  type ListOptions,
  type ReadOptions,
  type SessionPage,
  ScriptedChatClient,
  type ScriptedStep,
  SessionBusyError,
  speakerOf,
  TextMentionTermination,
  tool,
} from '../../src/index.js';

/** What the test passes to each worker. */
export interface RaceWorkerConfig {
  readonly connectionString: string;
  /** The store's table prefix. */
  readonly table: string;
  readonly sessions: number;
  readonly worker: string;
  /** Sessions a worker runs at once (never the same one twice at once). */
  readonly lanes: number;
  /** The same for every worker: the order in which they all go through blocks of sessions. */
  readonly sharedSeed: number;
  /** Sessions per block. */
  readonly block: number;
  /** Seeds the worker's random session order and delays, so a failing run can be replayed. */
  readonly seed: number;
  /** The worker gives up (and fails) after this long. */
  readonly deadlineMs: number;
}

/** What a worker counted, printed as its last line. */
export interface RaceWorkerStats {
  readonly worker: string;
  /** Every `SessionBusyError` that `run()` rejected with. */
  busy: number;
  /** ... of which lost the compare-and-append on the step number rather than the lease. */
  busyOnCommit: number;
  /** Runs that delivered a user reply. */
  replies: number;
  /**
   * Runs without a task: `info()` said `idle` between two steps of a turn. No runner dies or
   * loses a commit mid-turn here, so each means `info()` said `idle` while another process ran it.
   */
  emptyRuns: number;
  /** ... of which finished the turn (rather than finding it finished by the other process). */
  finishedTurns: number;
  /** Times `info()` said another process was running the session. */
  sawRunning: number;
  /** Sessions this worker saw terminate in one of its own runs. */
  terminatedHere: number;
  passes: number;
  ms: number;
}

/** The final phrase: the session ends when `tech` says it. */
export const FINAL_PHRASE = 'GOODBYE';
/** User turns per session. */
export const TURNS = 3;

export const raceSessionIds = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => `s-${String(i).padStart(3, '0')}`);

/** The user's reply of `turn` in `sessionId`: distinct in every session and turn. */
export const userReply = (sessionId: string, turn: number): string =>
  `turn ${turn} of ${sessionId}`;

const REPLY = /^turn (\d+) of (\S+)$/;

/** What the user wants at each turn: turn 1 goes to billing, 2 to tech, 3 to billing then tech. */
function turnOf(request: ModelRequest): { turn: number; sessionId: string; tail: LLMMessage[] } {
  const messages = request.messages;
  // What the user said: other agents' turns and handoffs are user turns too.
  const index = messages.findLastIndex((m) => speakerOf(m) === 'user');
  const match = REPLY.exec(index < 0 ? '' : String(messages[index]?.content));
  if (match === null) {
    throw new Error(`race desk: no user reply "turn <n> of <session>" in the request`);
  }
  return { turn: Number(match[1]), sessionId: match[2] ?? '', tail: messages.slice(index + 1) };
}

/** A model that answers from the request only, so any process can continue any session. */
function model(
  agent: 'triage' | 'billing' | 'tech',
  pause: () => Promise<void>,
): ScriptedChatClient {
  return new ScriptedChatClient(async (request): Promise<ScriptedStep> => {
    await pause();
    const { turn, sessionId, tail } = turnOf(request);
    const call = (name: string, args: unknown, id: string): ScriptedStep => ({
      content: null,
      toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
    });
    if (agent === 'triage') {
      const target = turn % 2 === 1 ? 'billing' : 'tech';
      return call(`handoff_to_${target}`, {}, `handoff-triage-${turn}`);
    }
    if (agent === 'billing' && turn === 3) return call('handoff_to_tech', {}, 'handoff-billing-3');
    const result = tail.findLast((m) => m.role === 'tool');
    if (result === undefined) {
      return call('lookup_ticket', { ticket: `${sessionId}/${turn}` }, `lookup-${agent}-${turn}`);
    }
    const final = agent === 'tech' && turn === TURNS ? ` ${FINAL_PHRASE}` : '';
    return { content: `${agent} answers turn ${turn}: ${result.content}.${final}` };
  });
}

/**
 * The support desk every process builds the same way: `triage` hands turn 1 to `billing`, turn 2
 * to `tech`, turn 3 to `billing`, who hands it on to `tech`; each specialist looks the ticket up
 * with a tool before answering, and `tech`'s last answer ends the session. `pause` runs before
 * every model call and tool call, so that runs take a few milliseconds and overlap.
 */
export function raceDesk(store: CheckpointStore, pause: () => Promise<void> = async () => {}) {
  const lookup = tool({
    name: 'lookup_ticket',
    description: 'Looks a ticket up.',
    parameters: z.object({ ticket: z.string() }),
    // A read (API.md §17): no start commit, and redone after a crash.
    effect: 'read',
    execute: async ({ ticket }, ctx) => {
      await pause();
      return `ticket ${ticket} is open (${ctx.agent})`;
    },
  });
  const triage = new Agent({ name: 'triage', client: model('triage', pause) });
  const specialist = (name: 'billing' | 'tech') =>
    new Agent({ name, client: model(name, pause), tools: [lookup], maxToolIterations: 2 });
  const billing = specialist('billing');
  const tech = specialist('tech');
  return new HandoffBuilder({ name: 'race-desk', participants: [triage, billing, tech] })
    .coordinator(triage)
    .addHandoff(billing, [tech])
    .withTerminationCondition(
      new TextMentionTermination(FINAL_PHRASE, { sources: ['tech'] }).or(
        new MaxMessageTermination(40),
      ),
    )
    .withCheckpointing(store)
    .build();
}

/** How many user replies a thread holds. */
export const userTurns = (thread: readonly AgentMessage[]): number =>
  thread.filter((m) => m.source === 'user' && m.type === 'TextMessage').length;

/** A small PRNG (mulberry32), so that a worker's order and delays follow its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function shuffle<T>(items: T[], rand: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/**
 * A store that makes the next `run()` of a session conditional on the step its caller last saw:
 * the run's first commit must be that step + 1, or it is refused, which `run()` reports as
 * `SessionBusyError`. Without it, `info()` then `run(reply)` is not atomic across processes: a
 * worker that saw a session paused could send a reply that another worker already sent, or
 * reopen (with a `resume` step) a session that another worker just terminated.
 */
class ExpectedStepStore implements CheckpointStore {
  readonly #inner: CheckpointStore;
  readonly #expected = new Map<string, number>();

  constructor(inner: CheckpointStore) {
    this.#inner = inner;
  }

  /** The next commit to `sessionId` must be step `step`; `undefined` lifts the condition. */
  expect(sessionId: string, step: number | undefined): void {
    if (step === undefined) this.#expected.delete(sessionId);
    else this.#expected.set(sessionId, step);
  }

  async append(sessionId: string, record: CheckpointRecord): Promise<boolean> {
    const expected = this.#expected.get(sessionId);
    if (expected !== undefined) {
      if (record.step !== expected) return false;
      this.#expected.delete(sessionId);
    }
    return this.#inner.append(sessionId, record);
  }

  read(sessionId: string, options?: ReadOptions): Promise<CheckpointRecord[]> {
    return this.#inner.read(sessionId, options);
  }

  acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.#inner.acquireLease(sessionId, owner, ttlMs);
  }

  releaseLease(sessionId: string, owner: string): Promise<void> {
    return this.#inner.releaseLease(sessionId, owner);
  }

  leaseHolder(sessionId: string): Promise<string | null> {
    return this.#inner.leaseHolder(sessionId);
  }

  delete(sessionId: string): Promise<boolean> {
    return this.#inner.delete(sessionId);
  }

  list(options?: ListOptions): Promise<SessionPage> {
    return this.#inner.list(options);
  }

  deleteOlderThan(date: Date): Promise<number> {
    return this.#inner.deleteOlderThan(date);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

async function main(config: RaceWorkerConfig): Promise<RaceWorkerStats> {
  const rand = random(config.seed);
  const store = new ExpectedStepStore(
    new PostgresCheckpointStore({ connectionString: config.connectionString, table: config.table }),
  );
  const pause = () => sleep(1 + Math.floor(rand() * 3));
  const workflow = raceDesk(store, pause);
  const stats: RaceWorkerStats = {
    worker: config.worker,
    busy: 0,
    busyOnCommit: 0,
    replies: 0,
    emptyRuns: 0,
    finishedTurns: 0,
    sawRunning: 0,
    terminatedHere: 0,
    passes: 0,
    ms: 0,
  };

  /** One visit to a session; true once it has terminated. */
  const visit = async (sessionId: string): Promise<boolean> => {
    const session = workflow.session(sessionId);
    const info = await session.info();
    if (info.status === 'terminated') return true;
    // "running" hides the state underneath (it may be terminated already): come back later.
    if (info.status === 'running') {
      stats.sawRunning++;
      return false;
    }
    // A paused or new session gets the user's next reply; one `idle` between two steps of a turn
    // (its runner lost a commit race, or is finishing it right now) gets a run without a task.
    const paused = info.status === 'awaiting_input' || info.step === 0;
    const task = paused ? userReply(sessionId, userTurns(await session.messages()) + 1) : undefined;
    await pause(); // an app server's think time: widens the gap in which others overtake
    store.expect(sessionId, info.step + 1);
    try {
      const result = await session.run(task);
      if (task !== undefined) stats.replies++;
      else {
        stats.emptyRuns++;
        if (result.messages.length > 0) stats.finishedTurns++;
      }
      if (result.status === 'terminated') stats.terminatedHere++;
      return result.status === 'terminated';
    } catch (error) {
      if (!(error instanceof SessionBusyError)) throw error;
      stats.busy++;
      if (error.message.includes('committed step')) stats.busyOnCommit++;
      return false;
    } finally {
      store.expect(sessionId, undefined);
    }
  };

  try {
    // Connects, and creates the tables if this worker is the first.
    await store.read('warm-up');
    console.log('ready');
    let go = false;
    const lines = createInterface({ input: process.stdin });
    for await (const line of lines) {
      go = line.trim() === 'go';
      if (go) break;
    }
    lines.close();
    if (!go) throw new Error(`${config.worker}: stdin closed before "go"; the test has gone`);

    const started = Date.now();
    const open = new Set(raceSessionIds(config.sessions));
    while (open.size > 0) {
      if (Date.now() - started > config.deadlineMs) {
        throw new Error(
          `${config.worker} (seed ${config.seed}): ${open.size} sessions still open after ` +
            `${config.deadlineMs} ms, e.g. ${[...open].slice(0, 5).join(', ')}`,
        );
      }
      stats.passes++;
      // Every worker takes the open sessions in the same order of blocks, each block in its own
      // random order, so that the workers meet on the same few sessions; a few lanes per worker
      // each take the next session of the pass, so that many runs are in flight at once.
      const shared = shuffle(
        raceSessionIds(config.sessions),
        random(config.sharedSeed + stats.passes),
      );
      const queue: string[] = [];
      for (let i = 0; i < shared.length; i += config.block) {
        const block = shared.slice(i, i + config.block).filter((id) => open.has(id));
        queue.push(...shuffle(block, rand));
      }
      const lane = async () => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
          if (await visit(id)) open.delete(id);
        }
      };
      await Promise.all(Array.from({ length: config.lanes }, lane));
    }
    stats.ms = Date.now() - started;
    return stats;
  } finally {
    await store.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const config = JSON.parse(process.argv[2] ?? '{}') as RaceWorkerConfig;
  try {
    const stats = await main(config);
    console.log(`result ${JSON.stringify(stats)}`);
  } catch (error) {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  }
}
