import { randomUUID } from 'node:crypto';

import type { AnyStateMachine } from 'xstate';

import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import { ConfigError } from '../errors.js';
import type { AgentMessage } from '../messages/message.js';
import { CheckpointLink, type CheckpointOptions, fingerprintOf } from './checkpoint-link.js';
import { MachineDriver } from './machine-driver.js';
import { streamRun } from './message-stream.js';
import type { Orchestration } from './orchestration.js';
import type { Runnable, RunOptions, Session, SessionInfo, Task, TaskResult } from './runnable.js';
import type { CheckpointInfo } from './session-log.js';
import { SessionRuntime } from './session-runtime.js';
import { initialSessionState, type SessionState } from './session-state.js';
import { StateValidator } from './state-validator.js';

/** The id of the session that `run()` on a workflow or team uses. */
export const DEFAULT_SESSION_ID = 'default';

/** Options of `session(id, options)`. */
export interface SessionOptions {
  /** Start the new session as a copy of another session at a past step (time travel). */
  from?: { session: string; step: number };
}

/** Where a runner keeps its sessions' step logs. */
export interface Checkpointing extends CheckpointOptions {
  readonly store: CheckpointStore;
}

/** A session with its step log and what happened at each step. */
export interface CheckpointedSession extends Session {
  /** The step log: one entry per committed step. Needs a checkpoint store. */
  checkpoints(): Promise<CheckpointInfo[]>;
}

/**
 * Runs a compiled orchestration: one object serves any number of independent sessions. Teams and
 * workflows extend it; none has a loop of its own.
 */
export class WorkflowRunner implements Runnable {
  readonly #orchestration: Orchestration;
  readonly #driver: MachineDriver;
  readonly #sessions = new Map<string, SessionRuntime>();
  readonly #checkpointing: Checkpointing | undefined;
  readonly #validator: StateValidator;

  constructor(orchestration: Orchestration, checkpointing?: Checkpointing) {
    this.#orchestration = orchestration;
    this.#driver = new MachineDriver(orchestration.machine);
    this.#checkpointing = checkpointing;
    this.#validator = new StateValidator(this.#driver, orchestration.stopRule);
  }

  /** The compiled XState machine this workflow runs. */
  get machine(): AnyStateMachine {
    return this.#orchestration.machine;
  }

  /** Identifies participants, topology and routing; a stored session must match it. */
  get fingerprint(): string {
    return fingerprintOf(this.#orchestration.descriptor);
  }

  run(task?: Task, options?: RunOptions): Promise<TaskResult> {
    return this.session(DEFAULT_SESSION_ID).run(task, options);
  }

  runStream(task?: Task, options?: RunOptions): AsyncIterable<AgentMessage | TaskResult> {
    return this.session(DEFAULT_SESSION_ID).runStream(task, options);
  }

  reset(): Promise<void> {
    return this.session(DEFAULT_SESSION_ID).reset();
  }

  saveState(): Promise<unknown> {
    return this.session(DEFAULT_SESSION_ID).saveState();
  }

  loadState(state: unknown): Promise<void> {
    return this.session(DEFAULT_SESSION_ID).loadState(state);
  }

  /**
   * An independent conversation: a new generated id when `id` is omitted; with a checkpoint store,
   * the stored session of that id, loaded on first use. `options.from` forks a stored session.
   */
  session(id: string = randomUUID(), options: SessionOptions = {}): CheckpointedSession {
    if (typeof id !== 'string' || id.length === 0) {
      throw new ConfigError(
        `session(): the id must be a non-empty string, got ${JSON.stringify(id)}.`,
      );
    }
    const from = options.from;
    if (from !== undefined) {
      if (this.#checkpointing === undefined) {
        throw new ConfigError(
          `session("${id}", { from }): forking needs a checkpoint store with the step log of "${from.session}". ` +
            'Configure one with withCheckpointing().',
          { path: 'from' },
        );
      }
      if (this.#sessions.has(id)) {
        throw new ConfigError(
          `session("${id}", { from }): session "${id}" already exists. Fork into a new id.`,
          {
            path: 'id',
          },
        );
      }
      if (!Number.isInteger(from.step) || from.step < 1 || typeof from.session !== 'string') {
        throw new ConfigError(
          `session("${id}", { from }): from must be { session: string, step: positive integer }, got ${JSON.stringify(from)}.`,
          { path: 'from' },
        );
      }
    }
    return new SessionHandle(this.#runtime(id, from), this);
  }

  /**
   * A fresh state for a new or reset session.
   * @internal the engine's (its sessions call it); not part of the public API.
   */
  freshState(): SessionState {
    const rule = this.#orchestration.stopRule;
    return initialSessionState(this.#driver.initialState, rule?.initialState ?? null);
  }

  /**
   * Checks a state from `saveState()` with the workflow's one validator (the same as load and
   * fork), so a state it accepts can always be loaded again.
   * @throws ConfigError naming what is wrong and its path.
   * @internal the engine's (its sessions call it); not part of the public API.
   */
  parseState(state: unknown, sessionId: string): Omit<SessionState, 'step'> {
    const checked = this.#validator.saved(state);
    if (!checked.ok) {
      throw new ConfigError(
        `loadState() of session "${sessionId}": ${checked.problem}. ` +
          'Pass a value returned by saveState() of this workflow.',
        { path: checked.path },
      );
    }
    return checked.state;
  }

  #runtime(id: string, fork: SessionOptions['from']): SessionRuntime {
    let runtime = this.#sessions.get(id);
    if (runtime === undefined) {
      const checkpointing = this.#checkpointing;
      const link =
        checkpointing === undefined
          ? undefined
          : new CheckpointLink(checkpointing.store, id, this.#orchestration.descriptor, {
              ...checkpointing,
              check: (state) => this.#validator.stored(state),
            });
      runtime = new SessionRuntime(id, this.#orchestration, this.#driver, this.freshState(), {
        ...(link === undefined ? {} : { link }),
        ...(fork === undefined ? {} : { fork }),
      });
      this.#sessions.set(id, runtime);
    }
    return runtime;
  }
}

class SessionHandle implements CheckpointedSession {
  readonly #runtime: SessionRuntime;
  readonly #runner: WorkflowRunner;

  constructor(runtime: SessionRuntime, runner: WorkflowRunner) {
    this.#runtime = runtime;
    this.#runner = runner;
  }

  get id(): string {
    return this.#runtime.id;
  }

  run(task?: Task, options?: RunOptions): Promise<TaskResult> {
    return this.#runtime.run(task, options);
  }

  runStream(task?: Task, options?: RunOptions): AsyncIterable<AgentMessage | TaskResult> {
    return streamRun((sink) => this.#runtime.run(task, options, sink));
  }

  reset(): Promise<void> {
    return this.#runtime.replace(() => this.#runner.freshState(), 'reset');
  }

  async saveState(): Promise<unknown> {
    const { step: _step, ...state } = await this.#runtime.current();
    return structuredClone(state);
  }

  async loadState(state: unknown): Promise<void> {
    const loaded = this.#runner.parseState(structuredClone(state), this.id);
    await this.#runtime.replace((current) => ({ ...loaded, step: current.step }), 'load_state');
  }

  async messages(): Promise<AgentMessage[]> {
    return [...(await this.#runtime.current()).thread];
  }

  info(): Promise<SessionInfo> {
    return this.#runtime.info();
  }

  checkpoints(): Promise<CheckpointInfo[]> {
    return this.#runtime.checkpoints();
  }
}
