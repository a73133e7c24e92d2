import type { StateRecipe, StateValue } from '../../agents/conversation-state.js';
import { ConfigError } from '../../errors.js';
import type { AgentMessage } from '../../messages/message.js';
import { streamRun } from './message-stream.js';
import type { RunOptions, SessionInfo, Task, TaskResult } from '../runnable.js';
import type { CheckpointInfo } from '../log/checkpoint-info.js';
import type { RecordedSession, RecordOptions } from '../recording/record.js';
import type { Recording } from '../recording/recording.js';
import type { SessionRuntime } from './session-runtime.js';
import type { SessionState } from '../state/session-state.js';
import { threadOf } from '../state/state-thread.js';
import type { CheckpointedSession } from './workflow-runner.js';
import type { FeedEvent } from '../feed/run-event.js';
import { type FeedOptions, sessionFeed } from '../feed/session-feed.js';
import type { FeedHost } from '../feed/feed-host.js';

// The handle `workflow.session(id)` returns: it holds no state, only the id and the runner's hooks.

/** How a handle reaches its session's runtime, which the runner may drop and rebuild. */
export interface HandleHooks {
  /** The session's runtime, rebuilt (reloaded from the store) when it was dropped. */
  runtime(id: string): SessionRuntime;
  /** Called when an operation ends, so the runner can drop idle sessions beyond its cache. */
  settle(): void;
  dispose(id: string): void;
  delete(id: string): Promise<void>;
  /** A fresh state (see `WorkflowRunner.freshState`). */
  fresh(): SessionState;
  /** A checked state from `saveState()` (see `WorkflowRunner.parseState`). */
  parse(state: unknown, sessionId: string): Omit<SessionState, 'step'>;
  /** The session's recording from its thread and its state's updates. */
  record(id: string, session: RecordedSession, options: RecordOptions): Promise<Recording>;
  /** True when the runner drops idle sessions (it has a store), so `settle()` must run. */
  bounded: boolean;
  /** Where the runs report, and feeds read. */
  feed(): FeedHost;
}

/** What a caller holds for one session: its id and the runner's hooks (one handle per session). */
export class SessionHandle implements CheckpointedSession {
  readonly id: string;
  readonly #hooks: HandleHooks;

  constructor(id: string, hooks: HandleHooks) {
    this.id = id;
    this.#hooks = hooks;
  }

  run(task?: Task, options?: RunOptions): Promise<TaskResult> {
    return this.#use((runtime) => runtime.run(task, options));
  }

  runStream(task?: Task, options?: RunOptions): AsyncIterable<AgentMessage | TaskResult> {
    return streamRun(options, (streamed, sink) =>
      this.#use((runtime) => runtime.run(task, streamed, sink)),
    );
  }

  reset(): Promise<void> {
    return this.#use((runtime) => runtime.replace(() => this.#hooks.fresh(), 'reset'));
  }

  saveState(): Promise<unknown> {
    return this.#use(async (runtime) => {
      const { step: _step, ...state } = await runtime.current();
      return structuredClone(state);
    });
  }

  async loadState(state: unknown): Promise<void> {
    const loaded = this.#hooks.parse(structuredClone(state), this.id);
    await this.#use((runtime) =>
      runtime.replace((current) => ({ ...loaded, step: current.step }), 'load_state'),
    );
  }

  messages(): Promise<AgentMessage[]> {
    return this.#use(async (runtime) => threadOf(await runtime.current()).slice());
  }

  state(): Promise<StateValue> {
    return this.#use((runtime) => runtime.data());
  }

  updateState(recipe: StateRecipe): Promise<void> {
    return this.#use((runtime) => runtime.updateState(recipe));
  }

  info(): Promise<SessionInfo> {
    return this.#use((runtime) => runtime.info());
  }

  checkpoints(): Promise<CheckpointInfo[]> {
    return this.#use((runtime) => runtime.checkpoints());
  }

  stop(reason = 'External termination requested'): void {
    if (typeof reason !== 'string' || reason.length === 0) {
      throw new ConfigError(
        `session("${this.id}").stop(): the reason must be a non-empty string, got ${JSON.stringify(reason)}.`,
        { path: 'reason' },
      );
    }
    this.#hooks.runtime(this.id).stop(reason);
  }

  async record(options: RecordOptions = {}): Promise<Recording> {
    const state = await this.#use((runtime) => runtime.current());
    return this.#hooks.record(
      this.id,
      { thread: threadOf(state).slice(), stateUpdates: state.stateUpdates ?? [] },
      options,
    );
  }

  feed(options?: FeedOptions): AsyncIterable<FeedEvent> {
    return sessionFeed(this.#hooks.feed(), this.id, options);
  }

  dispose(): void {
    this.#hooks.dispose(this.id);
  }

  delete(): Promise<void> {
    return this.#hooks.delete(this.id);
  }

  #use<T>(work: (runtime: SessionRuntime) => Promise<T>): Promise<T> {
    const hooks = this.#hooks;
    const done = work(hooks.runtime(this.id));
    return hooks.bounded ? done.finally(hooks.settle) : done;
  }
}
