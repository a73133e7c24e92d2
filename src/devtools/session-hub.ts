import { stepViews } from '../engine/log/step-messages.js';
import { randomUUID } from 'node:crypto';

import type { SessionInfo, Task } from '../engine/runnable.js';
import type { CheckpointInfo } from '../engine/log/checkpoint-info.js';
import type { AgentMessage } from '../messages/message.js';
import { approve, reject, resolve } from '../messages/message-factories.js';
import { onSpanEnd } from '../observability/tracing.js';
import { ON_SPEAKERS, type ObservedRunOptions } from '../engine/run/speakers-listener.js';
import { redactSecrets } from '../redact.js';
import { fieldOf, isRecord } from '../unknown-value.js';
import { thrownText } from '../value-text.js';
import { type ConditionProgress, conditionProgress } from './condition-progress.js';
import {
  activeAfter,
  activeAfterResult,
  speakingAfter,
  speakingStates,
  type GraphStates,
  handoffToUserFrom,
  userTask,
} from './session-activity.js';
import { SessionTimings } from './session-timings.js';
import { storedSessionIds } from './stored-sessions.js';

import {
  type Decision,
  type DevSession,
  type DevWorkflow,
  type HubEvent,
  HubRequestError,
  type SessionSnapshot,
  type SessionSummary,
} from './hub-types.js';

interface Tracked {
  readonly session: DevSession;
  controller: AbortController | undefined;
  /** The user pressed Stop during the current (or latest) run: its failing spans were stopped. */
  stopped: boolean;
  active: string | null;
  speaking: string[];
}

/** An error as the page is sent it: its text, with any credential redacted. */
const errorText = (error: unknown) => redactSecrets(thrownText(error));

/**
 * The sessions one devtools server drives: it runs them, streams every message to the pages as a
 * `HubEvent`, stops them (through the run's `AbortSignal`) and lists them — the ones this process
 * created or opened, plus the ones stored in `storeDirectory` when the CLI gave the workflow a
 * `FileCheckpointStore`.
 */
export class SessionHub {
  readonly #workflow: DevWorkflow;
  readonly #condition: unknown;
  readonly #storeDirectory: string | undefined;
  readonly #states: GraphStates;
  readonly #tracked = new Map<string, Tracked>();
  readonly #listeners = new Set<(event: HubEvent) => void>();
  readonly #timings = new SessionTimings();
  readonly #stopTimings: () => void;

  constructor(
    workflow: DevWorkflow,
    options: { condition?: unknown; storeDirectory?: string; states: GraphStates },
  ) {
    this.#workflow = workflow;
    this.#condition = options.condition;
    this.#storeDirectory = options.storeDirectory;
    this.#states = options.states;
    this.#stopTimings = onSpanEnd((span) => {
      const timed = this.#timings.add(
        span,
        (id) => this.#tracked.has(id),
        (id) => this.#tracked.get(id)?.stopped === true,
      );
      if (timed !== undefined) this.#emit('span', { session: span.conversationId, span: timed });
    });
  }

  /** Stops following spans (the server is closing). */
  close(): void {
    this.#stopTimings();
  }

  /** The step log with each step's state patch, read from the store's records. */
  async #withPatches(id: string, log: CheckpointInfo[]): Promise<CheckpointInfo[]> {
    const store = this.#workflow.checkpointStore;
    if (store === undefined) return log;
    const patches = new Map<number, unknown>();
    for (const view of stepViews(id, await store.read(id, { from: 'start' }))) {
      if (view.statePatch !== undefined) patches.set(view.step, view.statePatch);
    }
    return log.map((c) => (patches.has(c.step) ? { ...c, patch: patches.get(c.step) } : c));
  }

  /** Calls `listener` with every event until the returned function is called. */
  subscribe(listener: (event: HubEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Sessions of this process (newest first), then the stored ones it has not opened. */
  async list(): Promise<SessionSummary[]> {
    const mine = [...this.#tracked.keys()].reverse();
    const stored =
      this.#storeDirectory === undefined ? [] : await storedSessionIds(this.#storeDirectory);
    const ids = [...mine, ...stored.filter((id) => !this.#tracked.has(id))];
    return Promise.all(
      ids.map(async (id): Promise<SessionSummary> => {
        const origin = this.#tracked.has(id) ? 'process' : 'store';
        try {
          const info = await this.#session(id).info();
          const status = this.#tracked.get(id)?.controller ? 'running' : info.status;
          return { id, status, step: info.step, origin };
        } catch {
          return { id, status: 'unreadable', step: 0, origin };
        }
      }),
    );
  }

  /** A new session with a generated id, or a fork of `from` (needs a checkpoint store). */
  async create(from?: { session: string; step: number }): Promise<string> {
    const id = randomUUID().slice(0, 8);
    let session: DevSession;
    try {
      session = this.#workflow.session(id, from === undefined ? {} : { from });
      await session.info();
    } catch (error) {
      throw new HubRequestError(400, errorText(error), { cause: error });
    }
    this.#tracked.set(id, {
      session,
      controller: undefined,
      stopped: false,
      active: null,
      speaking: [],
    });
    this.#emit('sessions', { reason: from === undefined ? 'created' : 'forked', id });
    return id;
  }

  /** The session `id` as the page shows it; opens a stored (or new) session of that id. */
  async snapshot(id: string): Promise<SessionSnapshot> {
    const tracked = this.#track(id);
    const { session } = tracked;
    let info: SessionInfo;
    let messages: AgentMessage[];
    let saved: Record<string, unknown>;
    try {
      [info, messages, saved] = await Promise.all([
        session.info(),
        session.messages(),
        session.saveState().then((s) => (isRecord(s) ? s : {})),
      ]);
    } catch (error) {
      throw new HubRequestError(400, errorText(error), { cause: error });
    }
    const running = tracked.controller !== undefined;
    const active = running
      ? tracked.active
      : typeof saved.machineState === 'string'
        ? saved.machineState
        : null;
    let checkpoints: CheckpointInfo[] | null = null;
    let checkpointsNote: string | undefined;
    if (typeof session.checkpoints !== 'function') {
      checkpointsNote = 'This workflow has no step log.';
    } else {
      try {
        checkpoints = await this.#withPatches(id, await session.checkpoints());
      } catch (error) {
        checkpointsNote = errorText(error);
      }
    }
    const handoffFrom = handoffToUserFrom(messages, this.#states);
    return {
      id,
      status: running ? 'running' : info.status,
      step: info.step,
      ...(info.pendingRequest === undefined ? {} : { pendingRequest: info.pendingRequest }),
      ...(handoffFrom === undefined ? {} : { handoffFrom }),
      messages,
      active,
      speaking: running ? tracked.speaking : [],
      progress: this.#progress(saved.termination),
      checkpoints,
      ...(checkpointsNote === undefined ? {} : { checkpointsNote }),
      state: info.state ?? {},
      spans: this.#timings.of(id),
    };
  }

  /**
   * Starts a run of session `id` and streams it to the pages: with `text` (or `null` to continue
   * without a task), or with `decisions` on the calls awaiting approval (the Approve / Reject
   * buttons). Resolves once the run has started.
   */
  async run(id: string, text: string | null, decisions?: readonly Decision[]): Promise<void> {
    const tracked = this.#track(id);
    if (tracked.controller !== undefined) {
      throw new HubRequestError(409, `Session "${id}" is running; stop it or wait for it.`);
    }
    const controller = new AbortController();
    tracked.controller = controller;
    tracked.stopped = false;
    let task: Task | undefined;
    try {
      task =
        decisions !== undefined
          ? decisions.map((d) =>
              d.result !== undefined
                ? resolve(d.callId, d.result)
                : d.approved
                  ? approve(d.callId)
                  : reject(d.callId, d.reason),
            )
          : text === null
            ? undefined
            : userTask(text, await tracked.session.messages(), this.#states);
    } catch (error) {
      tracked.controller = undefined;
      throw new HubRequestError(400, errorText(error), { cause: error });
    }
    this.#emit('run', { session: id });
    // Every page's session list shows the run: the list is read again on a `sessions` event.
    this.#emit('sessions', { reason: 'started', id });
    void this.#drive(id, tracked, task, controller.signal);
  }

  /** Aborts the run of session `id`; false when it is not running here. */
  stop(id: string): boolean {
    const tracked = this.#tracked.get(id);
    if (tracked?.controller === undefined) return false;
    tracked.stopped = true;
    tracked.controller.abort(new DOMException('Stopped from the devtools page.', 'AbortError'));
    return true;
  }

  /** Aborts every run (the server is closing). */
  stopAll(): void {
    for (const id of this.#tracked.keys()) this.stop(id);
  }

  async #drive(id: string, tracked: Tracked, task: Task | undefined, signal: AbortSignal) {
    try {
      // The run announces who starts a turn ahead of the stream this loop reads: each news waits
      // until the messages streamed before it have been read.
      let read = 0;
      const news: { readonly at: number; readonly speaking: string[] }[] = [];
      const apply = () => {
        for (let next = news[0]; next !== undefined && next.at <= read; next = news[0]) {
          news.shift();
          tracked.speaking = next.speaking;
          this.#emit('speakers', { session: id, speaking: tracked.speaking });
        }
      };
      const options: ObservedRunOptions = {
        signal,
        [ON_SPEAKERS]: (agents, streamed) => {
          news.push({ at: streamed, speaking: speakingStates(agents, this.#states) });
          apply();
        },
      };
      for await (const item of tracked.session.runStream(task, options)) {
        if (item.type === 'TaskResult') {
          tracked.active = activeAfterResult(tracked.active, item, this.#states);
          tracked.speaking = [];
          tracked.controller = undefined;
          const handoffFrom = handoffToUserFrom(item.messages, this.#states);
          this.#emit('result', {
            session: id,
            status: item.status,
            stopReason: item.stopReason,
            usage: item.usage,
            pendingRequest: item.pendingRequest ?? null,
            handoffFrom: handoffFrom ?? null,
            active: tracked.active,
            speaking: [],
            progress: await this.#sessionProgress(tracked.session),
          });
          continue;
        }
        tracked.active = activeAfter(tracked.active, item, this.#states);
        tracked.speaking = speakingAfter(tracked.speaking, item, this.#states);
        read++;
        const progress =
          item.type === 'ModelClientStreamingChunkEvent'
            ? undefined
            : await this.#sessionProgress(tracked.session);
        this.#emit('message', {
          session: id,
          message: item,
          active: tracked.active,
          speaking: tracked.speaking,
          ...(progress === undefined ? {} : { progress }),
        });
        apply();
      }
    } catch (error) {
      this.#emit('failure', { session: id, error: errorText(error) });
    } finally {
      tracked.controller = undefined;
      tracked.speaking = [];
      this.#emit('sessions', { reason: 'ran', id });
    }
  }

  async #sessionProgress(session: DevSession): Promise<ConditionProgress | null> {
    if (this.#condition === undefined) return null;
    const saved = await session.saveState().catch(() => null);
    return this.#progress(fieldOf(saved, 'termination'));
  }

  #progress(state: unknown): ConditionProgress | null {
    return this.#condition === undefined ? null : conditionProgress(this.#condition, state);
  }

  #session(id: string): DevSession {
    return this.#tracked.get(id)?.session ?? this.#workflow.session(id);
  }

  #track(id: string): Tracked {
    let tracked = this.#tracked.get(id);
    if (tracked === undefined) {
      let session: DevSession;
      try {
        session = this.#workflow.session(id);
      } catch (error) {
        throw new HubRequestError(400, errorText(error), { cause: error });
      }
      tracked = { session, controller: undefined, stopped: false, active: null, speaking: [] };
      this.#tracked.set(id, tracked);
    }
    return tracked;
  }

  #emit(event: HubEvent['event'], data: Record<string, unknown>): void {
    for (const listener of this.#listeners) listener({ event, data });
  }
}
