import { randomUUID } from 'node:crypto';

import { ConfigError } from '../errors.js';
import type { AgentMessage } from '../messages/message.js';
import { firstIssue } from '../zod-issues.js';
import { MachineDriver } from './machine-driver.js';
import { streamRun } from './message-stream.js';
import type { Orchestration } from './orchestration.js';
import type { RunOptions, Runnable, Session, SessionInfo, Task, TaskResult } from './runnable.js';
import { SessionRuntime } from './session-runtime.js';
import { initialSessionState, type SessionState, SessionStateSchema } from './session-state.js';

/** The id of the session that `run()` on a workflow or team uses. */
export const DEFAULT_SESSION_ID = 'default';

/**
 * Runs a compiled orchestration: one object serves any number of independent sessions. Teams and
 * workflows extend it; none has a loop of its own.
 */
export class WorkflowRunner implements Runnable {
  readonly #orchestration: Orchestration;
  readonly #driver: MachineDriver;
  readonly #sessions = new Map<string, SessionRuntime>();

  constructor(orchestration: Orchestration) {
    this.#orchestration = orchestration;
    this.#driver = new MachineDriver(orchestration.machine);
  }

  /** The compiled XState machine this workflow runs. */
  get machine(): Orchestration['machine'] {
    return this.#orchestration.machine;
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

  session(id: string = randomUUID()): Session {
    if (typeof id !== 'string' || id.length === 0) {
      throw new ConfigError(`session(): the id must be a non-empty string, got ${JSON.stringify(id)}.`);
    }
    return new SessionHandle(this.#runtime(id), this);
  }

  /** A fresh state for a new or reset session. */
  freshState(): SessionState {
    const rule = this.#orchestration.stopRule;
    return initialSessionState(this.#driver.initialState, rule?.initialState ?? null);
  }

  /** Validates a saved state against the schema and this workflow's machine. */
  parseState(state: unknown, sessionId: string): SessionState {
    const parsed = SessionStateSchema.safeParse(state);
    if (!parsed.success) {
      const issue = firstIssue(parsed.error);
      throw new ConfigError(
        `loadState() of session "${sessionId}": the state is invalid at ${issue.text}. ` +
          'Pass a value returned by saveState().',
        { path: issue.path },
      );
    }
    const value = parsed.data;
    for (const name of [value.machineState, value.resumeState]) {
      if (name !== null && !this.#driver.has(name)) {
        throw new ConfigError(
          `loadState() of session "${sessionId}": the state is at "${name}", which workflow ` +
            `"${this.#orchestration.name}" does not have. Load it into the workflow that saved it.`,
          { path: 'machineState' },
        );
      }
    }
    return value;
  }

  #runtime(id: string): SessionRuntime {
    let runtime = this.#sessions.get(id);
    if (runtime === undefined) {
      runtime = new SessionRuntime(id, this.#orchestration, this.#driver, this.freshState());
      this.#sessions.set(id, runtime);
    }
    return runtime;
  }
}

class SessionHandle implements Session {
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

  async reset(): Promise<void> {
    this.#runtime.replaceState(this.#runner.freshState());
  }

  async saveState(): Promise<unknown> {
    return structuredClone(this.#runtime.state);
  }

  async loadState(state: unknown): Promise<void> {
    this.#runtime.replaceState(this.#runner.parseState(structuredClone(state), this.id));
  }

  async messages(): Promise<AgentMessage[]> {
    return [...this.#runtime.state.thread];
  }

  async info(): Promise<SessionInfo> {
    return this.#runtime.info();
  }
}
