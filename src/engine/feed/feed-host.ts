import { setTimeout as sleep } from 'node:timers/promises';

import type { CheckpointStore } from '../../checkpoint/checkpoint-store.js';
import type { AgentMessage } from '../../messages/message.js';
import { type Reading, type StepView, stepViewOf, stepViews } from '../log/step-messages.js';
import type { TaskResult } from '../runnable.js';
import type { SessionState } from '../state/session-state.js';
import type { StepBody } from '../state/step.js';
import { LiveRun } from './live-run.js';
import type { RunChannel } from './run-channel.js';
import type { RunEvent } from './run-event.js';

/** How often a reader looks at the store for what another process does, without a channel. */
export const POLL_MS = 50;
/** With a channel that announces steps: the store is looked at only as a slow fallback. */
const FALLBACK_POLL_MS = 1000;

/** How many sessions' drafts from other processes a host keeps at most (one step each). */
const MAX_REMOTE_SESSIONS = 1000;

/** The drafts another process published of the step a session is making, with their cursors. */
interface RemoteDrafts {
  readonly step: number;
  chunks: number;
  others: number;
  readonly events: RunEvent[];
}

/** The hosts of the stores in this process: every workflow on one store object shares one. */
const HOSTS = new WeakMap<CheckpointStore, FeedHost>();

/** The feed host of `store` in this process (made on first use). */
export function feedHostOf(store: CheckpointStore): FeedHost {
  let host = HOSTS.get(store);
  if (host === undefined) {
    host = new FeedHost(store);
    HOSTS.set(store, host);
  }
  return host;
}

/**
 * What this process knows of the runs of the sessions of one store (or of one workflow without a
 * store): the runs going on here, as they happen (their drafts included once someone watches),
 * and how to follow runs of other processes — the store's log, woken by a channel's announcements
 * when one is attached. Every run of the engine reports here; `session.feed()` and every edge
 * (serve's encoders, the workers' announcements) read from here.
 */
export class FeedHost {
  readonly store: CheckpointStore | undefined;
  readonly #live = new Map<string, LiveRun>();
  /** Without a store, once watched: each session's steps as its runs here committed them. */
  readonly #memoryLog = new Map<string, StepView[]>();
  readonly #waiters = new Map<string, Set<() => void>>();
  /** Who waits for the next run of a session to begin here. */
  readonly #next = new Map<string, Set<(live: LiveRun) => void>>();
  #watched = false;
  #channel: RunChannel | undefined;
  #listening: Promise<(() => Promise<void>) | undefined> | undefined;
  #listeningDrafts: Promise<(() => Promise<void>) | undefined> | undefined;
  /** The drafts other processes published of the step each session is making. */
  readonly #remote = new Map<string, RemoteDrafts>();
  #heard = false;

  constructor(store: CheckpointStore | undefined) {
    this.store = store;
  }

  /** True once someone reads the feed: without a store, runs then keep their steps for it. */
  get watched(): boolean {
    return this.#watched;
  }

  watch(): void {
    this.#watched = true;
  }

  /** The channel other processes announce on (a queue engine's), if one is attached. */
  get channel(): RunChannel | undefined {
    return this.#channel;
  }

  /** Attaches the channel of the processes sharing the store; the first one attached stays. */
  attach(channel: RunChannel): void {
    this.#watched = true;
    this.#channel ??= channel;
  }

  /** True when runs go to workers (a channel that queues). */
  get queued(): boolean {
    return this.#channel?.queued === true;
  }

  live(id: string): LiveRun | undefined {
    return this.#live.get(id);
  }

  /** A run of the session starts here (holding its lease), after step `step` of its log. */
  begin(id: string, step: number): LiveRun {
    const live = new LiveRun(id, { step, n: 0 });
    this.#live.set(id, live);
    const next = this.#next.get(id);
    if (next !== undefined) {
      this.#next.delete(id);
      for (const begun of next) begun(live);
    }
    return live;
  }

  /** `begun`: the next run of the session that begins here; `cancel()` stops waiting for it. */
  nextRun(id: string): { begun: Promise<LiveRun>; cancel(): void } {
    let begun: (live: LiveRun) => void = () => {};
    const promise = new Promise<LiveRun>((resolve) => (begun = resolve));
    let set = this.#next.get(id);
    if (set === undefined) {
      set = new Set();
      this.#next.set(id, set);
    }
    set.add(begun);
    const cancel = () => {
      const waiting = this.#next.get(id);
      waiting?.delete(begun);
      if (waiting?.size === 0) this.#next.delete(id);
    };
    return { begun: promise, cancel };
  }

  /** A run that failed before it began (`error`), as a run of its own that only says so. */
  failedRun(id: string, message: string, error: unknown): LiveRun {
    const live = new LiveRun(id, { step: 0, n: 0 });
    live.fail(message, error);
    return live;
  }

  /** A step the run `live` committed. */
  committed(live: LiveRun, state: SessionState, change: StepBody): void {
    const { append = [], statePatch, stopReason } = change;
    const view = stepViewOf(state.step, append, state, statePatch, stopReason);
    if (this.store === undefined && this.#watched) this.#logOf(live.sessionId).push(view);
    live.step(view);
    this.#wake(live.sessionId);
    const channel = this.#channel;
    if (channel !== undefined) void channel.announce(live.sessionId).catch(() => {});
  }

  /** A message the run streamed (a draft until its step is committed), sent on to the channel. */
  streamed(live: LiveRun, message: AgentMessage): void {
    if (!live.message(message)) return;
    this.#channel?.publishDraft?.(live.sessionId, live.last.step + 1, message);
  }

  /**
   * The drafts other processes published of step `step` of the session (the one being made after
   * the last committed step a reader has), listening for them from the first call on.
   */
  remoteDrafts(id: string, step: number): readonly RunEvent[] {
    this.#listenDrafts();
    const drafts = this.#remote.get(id);
    if (drafts === undefined) return [];
    if (drafts.step < step) {
      this.#remote.delete(id);
      return [];
    }
    return drafts.step === step ? drafts.events : [];
  }

  /** The run `live` ended with `result` (or failed with `error`). */
  async end(live: LiveRun, outcome: { result: TaskResult } | { error: string; thrown: unknown }) {
    try {
      if ('result' in outcome) {
        const base = live.steps.length === 0 ? await this.#stepLength(live) : undefined;
        live.finish(outcome.result, base);
      } else live.fail(outcome.error, outcome.thrown);
    } finally {
      if (this.#live.get(live.sessionId) === live) this.#live.delete(live.sessionId);
      this.#wake(live.sessionId);
    }
  }

  /** True when a run of the session goes on here or in a process sharing the store. */
  async running(id: string): Promise<boolean> {
    if (this.#live.has(id)) return true;
    return this.store !== undefined && (await this.store.leaseHolder(id)) !== null;
  }

  /**
   * True while a run of the session goes on or will go on without new input: `running()`, or a
   * job of it in the queue (`held`: a job a worker holds counts too).
   */
  async goingOn(id: string, held: boolean): Promise<boolean> {
    if (await this.running(id)) return true;
    return (await this.#channel?.pending?.(id, held)) === true;
  }

  /** Every committed step of the session, from the store's log or this process's record. */
  async views(id: string, reading?: Reading): Promise<StepView[]> {
    if (this.store === undefined) return [...(this.#memoryLog.get(id) ?? [])];
    return stepViews(id, await this.store.read(id, { from: 'start' }), reading);
  }

  /** The steps committed after `step`, read on from `reading`. */
  async viewsAfter(id: string, step: number, reading: Reading): Promise<StepView[]> {
    if (this.store === undefined) {
      return (this.#memoryLog.get(id) ?? []).filter((v) => v.step > step);
    }
    return stepViews(id, await this.store.read(id, { from: { after: step } }), reading);
  }

  /** Settles when a step of the session is announced, after a while without one, or on `signal`. */
  async changed(id: string, signal?: AbortSignal): Promise<void> {
    this.#listen();
    const wait = this.#heard ? FALLBACK_POLL_MS : POLL_MS;
    let wake = () => {};
    const woken = new Promise<void>((resolve) => (wake = resolve));
    let set = this.#waiters.get(id);
    if (set === undefined) {
      set = new Set();
      this.#waiters.set(id, set);
    }
    set.add(wake);
    signal?.addEventListener('abort', wake, { once: true });
    const timer = new AbortController();
    try {
      await Promise.race([woken, sleep(wait, undefined, { ref: false, signal: timer.signal })]);
    } catch {
      // The timer was cleared.
    } finally {
      timer.abort();
      signal?.removeEventListener('abort', wake);
      set.delete(wake);
      if (set.size === 0 && this.#waiters.get(id) === set) this.#waiters.delete(id);
    }
  }

  /** Forgets a deleted or disposed session kept without a store. */
  forget(id: string): void {
    this.#memoryLog.delete(id);
  }

  /** Lets every reader waiting for news go (e.g. as a server closes). */
  wakeAll(): void {
    for (const id of [...this.#waiters.keys()]) this.#wake(id);
  }

  /** Stops listening to the channel. */
  async close(): Promise<void> {
    this.wakeAll();
    const listening = this.#listening;
    this.#listening = undefined;
    this.#heard = false;
    const drafts = this.#listeningDrafts;
    this.#listeningDrafts = undefined;
    this.#remote.clear();
    for (const stop of await Promise.all([listening, drafts])) await stop?.().catch(() => {});
  }

  #listen(): void {
    const channel = this.#channel;
    if (channel === undefined || this.#listening !== undefined) return;
    this.#listening = channel
      .listen((id) => this.#wake(id))
      .then(
        (stop) => {
          this.#heard = true;
          return stop;
        },
        () => undefined,
      );
  }

  #listenDrafts(): void {
    const listen = this.#channel?.listenDrafts;
    if (listen === undefined || this.#listeningDrafts !== undefined) return;
    this.#listeningDrafts = listen
      .call(this.#channel, (id, step, message) => this.#heardDraft(id, step, message))
      .catch(() => undefined);
  }

  #heardDraft(id: string, step: number, message: AgentMessage): void {
    if (this.#live.has(id)) return;
    let drafts = this.#remote.get(id);
    if (drafts === undefined || drafts.step < step) {
      this.#remote.delete(id);
      // The sessions whose drafts are kept are bounded: the oldest go first.
      if (this.#remote.size >= MAX_REMOTE_SESSIONS) {
        const oldest = this.#remote.keys().next().value;
        if (oldest !== undefined) this.#remote.delete(oldest);
      }
      drafts = { step, chunks: 0, others: 0, events: [] };
      this.#remote.set(id, drafts);
    } else if (drafts.step > step) return;
    const chunk = message.type === 'ModelClientStreamingChunkEvent';
    if (chunk) drafts.others = 0;
    const cursor = chunk
      ? { step, n: 0, chunk: ++drafts.chunks }
      : { step, n: 0, chunk: drafts.chunks, draft: ++drafts.others };
    drafts.events.push({ id: cursor, kind: 'message', message, draft: true });
    this.#wake(id);
  }

  #wake(id: string): void {
    const set = this.#waiters.get(id);
    if (set === undefined) return;
    this.#waiters.delete(id);
    for (const wake of set) wake();
  }

  /** How many messages the log's step before the run `live` appended. */
  async #stepLength(live: LiveRun): Promise<number> {
    const { step } = live.base;
    if (step === 0) return 0;
    const id = live.sessionId;
    if (this.store === undefined) {
      return this.#memoryLog.get(id)?.find((v) => v.step === step)?.messages.length ?? 0;
    }
    const records = await this.store.read(id, { from: { after: step - 1 }, upTo: step });
    return stepViews(id, records).at(-1)?.messages.length ?? 0;
  }

  #logOf(id: string): StepView[] {
    let log = this.#memoryLog.get(id);
    if (log === undefined) {
      log = [];
      this.#memoryLog.set(id, log);
    }
    return log;
  }
}

/**
 * `sink`, also giving the feed the run's streamed messages (its drafts): a reader may open the
 * feed at any time during the run and see the drafts of the step being made.
 */
export function draftSink(
  feed: FeedHost,
  live: LiveRun,
  sink: ((message: AgentMessage) => void) | undefined,
): (message: AgentMessage) => void {
  if (sink === undefined) return (message) => feed.streamed(live, message);
  return (message) => {
    feed.streamed(live, message);
    sink(message);
  };
}
