import { newId } from '../ids.js';

import type { AgentResponse, ChatAgent } from '../agents/chat-agent.js';
import { ConfigError, SessionBusyError } from '../errors.js';
import type { AgentEvent, AgentMessage, StopMessage } from '../messages/message.js';
import { isChatMessage } from '../messages/message.js';
import { userInputRequestedEvent } from '../messages/message-factories.js';
import { messageToText } from '../messages/message-text.js';
import { recordAppend } from '../messages/thread-index.js';
import { traceAgentTurn, traceRun } from '../observability/gen-ai-spans.js';
import { redactSecrets } from '../redact.js';
import { thrownText } from '../value-text.js';
import type { CheckpointLink } from './checkpoint-link.js';
import type { MachineDriver } from './machine-driver.js';
import type { Orchestration } from './orchestration.js';
import type { RunOptions, SessionInfo, Task, TaskResult } from './runnable.js';
import type { CheckpointInfo } from './session-log.js';
import { applyStep, type SessionState, type StepChange } from './session-state.js';
import { toTaskMessages, totalUsage } from './task-messages.js';

/** Receives every message of a run as it is produced (streaming chunks included). */
export type MessageSink = (message: AgentMessage) => void;

/** Where a session comes from: its own log, or a past step of another session (a fork). */
export interface SessionOrigin {
  readonly link?: CheckpointLink;
  readonly fork?: { readonly session: string; readonly step: number };
}

/** `thread` with `message` appended, recorded as its continuation (see `recordAppend`). */
function appended(thread: readonly AgentMessage[], message: AgentMessage): readonly AgentMessage[] {
  const next = thread.concat(message);
  recordAppend(thread, next);
  return next;
}

/** Thrown inside a run when the signal aborts it; turned into a `cancelled` result. */
class RunCancelled extends Error {
  override readonly name = 'RunCancelled';
}

/**
 * One conversation: its state and the loop that advances it. Each pass of the loop is one step
 * (one agent response, or one user input) committed before the next begins.
 */
export class SessionRuntime {
  readonly id: string;
  readonly #orchestration: Orchestration;
  readonly #driver: MachineDriver;
  readonly #link: CheckpointLink | undefined;
  readonly #origin: SessionOrigin;
  #state: SessionState;
  #loading: Promise<void> | undefined;
  #running = false;

  constructor(
    id: string,
    orchestration: Orchestration,
    driver: MachineDriver,
    fresh: SessionState,
    origin: SessionOrigin = {},
  ) {
    this.id = id;
    this.#orchestration = orchestration;
    this.#driver = driver;
    this.#state = fresh;
    this.#link = origin.link;
    this.#origin = origin;
  }

  /** The state as last loaded or committed (call `current()` to catch up with the store). */
  get state(): SessionState {
    return this.#state;
  }

  /** The state, after loading and catching up with steps other processes committed. */
  async current(): Promise<SessionState> {
    await this.#ready();
    if (this.#link !== undefined && !this.#running)
      this.#state = await this.#link.catchUp(this.#state);
    return this.#state;
  }

  /** Replaces the state as one step (reset, loadState); refused while a run is in progress. */
  async replace(next: (current: SessionState) => SessionState, event: string): Promise<void> {
    await this.#exclusive(async () => {
      const state = { ...next(this.#state), step: this.#state.step + 1 };
      await this.#link?.replace(state, event);
      this.#state = state;
    });
  }

  async info(): Promise<SessionInfo> {
    let s = await this.current();
    let running = this.#running;
    if (!running && this.#link !== undefined) {
      // Another process may start and commit between reading the state and reading the lease:
      // read the lease on both sides of the state until the step holds still.
      for (let attempt = 0; attempt < 3 && !running; attempt++) {
        const before = await this.#link.runningElsewhere();
        const step = s.step;
        s = await this.current();
        running = before || (await this.#link.runningElsewhere());
        if (s.step === step) break;
      }
    }
    const status = running ? 'running' : s.status;
    return status === 'awaiting_input' && s.pendingRequest !== null
      ? { status, pendingRequest: s.pendingRequest, step: s.step }
      : { status, step: s.step };
  }

  async checkpoints(): Promise<CheckpointInfo[]> {
    if (this.#link === undefined) {
      throw new ConfigError(
        `Session "${this.id}" has no step log: its workflow keeps sessions in memory only. ` +
          'Configure a checkpoint store (e.g. withCheckpointing(new MemoryCheckpointStore())).',
        { path: 'checkpointStore' },
      );
    }
    await this.#ready();
    return this.#link.checkpoints();
  }

  run(task?: Task, options: RunOptions = {}, sink?: MessageSink): Promise<TaskResult> {
    return traceRun(this.#orchestration.name, this.id, () =>
      this.#exclusive(() => this.#run(task, options, sink)),
    );
  }

  /** Runs `work` as the only activity on this session, here and in every process sharing the store. */
  async #exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running) throw new SessionBusyError(this.id);
    this.#running = true;
    let leased = false;
    try {
      await this.#ready();
      if (this.#link !== undefined) {
        await this.#link.acquire();
        leased = true;
        this.#state = await this.#link.catchUp(this.#state);
      }
      return await work();
    } finally {
      if (leased) await this.#link?.release();
      this.#running = false;
    }
  }

  #ready(): Promise<void> {
    this.#loading ??= (async () => {
      const link = this.#link;
      if (link === undefined) return;
      const fork = this.#origin.fork;
      this.#state =
        fork === undefined
          ? await link.load(this.#state)
          : await link.fork(fork.session, fork.step);
    })().catch((error: unknown) => {
      this.#loading = undefined;
      throw error;
    });
    return this.#loading;
  }

  async #commit(change: StepChange): Promise<void> {
    const step = applyStep(this.#state, change);
    await this.#link?.commit(step);
    this.#state = step.state;
  }

  async #run(task: Task | undefined, options: RunOptions, sink?: MessageSink): Promise<TaskResult> {
    const orchestration = this.#orchestration;
    const driver = this.#driver;
    const taskMessages = toTaskMessages(task);
    const out: AgentMessage[] = [];
    const emit = (m: AgentMessage): void => {
      out.push(m);
      sink?.(m);
    };
    const result = (status: TaskResult['status'], stopReason: string | null): TaskResult => {
      const pending = this.#state.pendingRequest;
      return {
        type: 'TaskResult',
        messages: out,
        stopReason,
        status,
        ...(status === 'awaiting_input' && pending !== null ? { pendingRequest: pending } : {}),
        sessionId: this.id,
        usage: totalUsage(out),
      };
    };

    if (taskMessages.length > 0) {
      const state = this.#state;
      const meta = driver.meta(state.machineState);
      const waiting = meta.kind === 'input' || meta.kind === 'stopped';
      const machineState = waiting
        ? driver.next(state.machineState, orchestration.routeUserInput(state, taskMessages))
        : state.machineState;
      const check = await this.#checkStop(taskMessages);
      await this.#commit({
        event: 'user_input',
        append: taskMessages,
        machineState,
        resumeState: null,
        pendingRequest: null,
        status: 'idle',
        termination: check.state,
        ...(check.stop === null ? {} : await this.#stopChange(machineState, check.state)),
      });
      if (options.outputTaskMessages !== false) for (const m of taskMessages) emit(m);
      if (check.stop !== null) return result('terminated', check.stop.content);
    } else {
      const resumed = this.#resumeWithoutTask();
      const waiting = this.#driver.meta(resumed).kind === 'input';
      const status = waiting ? 'awaiting_input' : 'idle';
      if (resumed !== this.#state.machineState || status !== this.#state.status) {
        await this.#commit({ event: 'resume', machineState: resumed, resumeState: null, status });
      }
      if (waiting) return result('awaiting_input', null);
    }

    for (;;) {
      const state = this.#state;
      const meta = driver.meta(state.machineState);
      if (meta.kind !== 'agent' && meta.kind !== 'select') return result('awaiting_input', null);
      if (state.turn >= orchestration.maxTurns) {
        const reason = `Maximum number of turns ${orchestration.maxTurns} reached.`;
        await this.#commit({
          event: 'stop',
          ...(await this.#stopChange(state.machineState, state.termination)),
        });
        return result('terminated', reason);
      }
      if (options.signal?.aborted) return this.#cancel(result);

      let speaking: string;
      let selection: AgentEvent | undefined;
      try {
        ({ speaking, selection } = await this.#speaker(state, options.signal));
      } catch (error) {
        if (error instanceof RunCancelled) return this.#cancel(result);
        throw error;
      }
      const agent = (driver.meta(speaking) as { agent: string }).agent;
      const emitted = new Set<string>();
      let response: AgentResponse;
      try {
        if (selection !== undefined) {
          emitted.add(selection.id);
          sink?.(selection);
        }
        // The selector's choice is part of what the chosen agent sees (it is committed with its answer).
        const seen =
          selection === undefined ? state : { ...state, thread: appended(state.thread, selection) };
        response = await this.#respond(agent, speaking, seen, options.signal, (event) => {
          if (event.type !== 'ModelClientStreamingChunkEvent') emitted.add(event.id);
          sink?.(event);
        });
      } catch (error) {
        if (error instanceof RunCancelled) return this.#cancel(result);
        throw error;
      }

      const delta: AgentMessage[] = [...(response.innerMessages ?? []), response.chatMessage];
      const routing = orchestration.routeResponse(agent, response, state, speaking);
      const next = driver.next(speaking, routing.event);
      const turn = state.turn + 1;
      const followUp = routing.followUp ?? [];
      // A condition that fails does not lose the answer it was checking: the answer is committed
      // (with the condition state as it was) and the failure rejects the run after that.
      let check: { stop: StopMessage | null; state: unknown } = {
        stop: null,
        state: state.termination,
      };
      let conditionError: unknown;
      try {
        check = await this.#checkStop(delta, state.termination);
        if (check.stop === null && followUp.length > 0) {
          check = await this.#checkStop(followUp, check.state, delta);
        }
      } catch (error) {
        conditionError = error;
        check = { stop: null, state: state.termination };
      }

      const append: AgentMessage[] = selection === undefined ? [...delta] : [selection, ...delta];
      const nextMeta = driver.meta(next);
      const waits = nextMeta.kind === 'input';
      let pendingRequest = null;
      // A stop on this answer ends the session: it asks nobody anything.
      if (nextMeta.kind === 'input' && nextMeta.asks === true && check.stop === null) {
        pendingRequest = { id: newId(), agent, prompt: messageToText(response.chatMessage) };
        append.push(
          userInputRequestedEvent({
            source: agent,
            requestId: pendingRequest.id,
            content: pendingRequest.prompt,
          }),
        );
      }
      append.push(...followUp);
      // The answer, the pause it causes and a stop it triggers are one step.
      await this.#commit({
        event: `agent_response:${agent}`,
        append,
        machineState: next,
        pendingRequest,
        turn: waits ? 0 : turn,
        termination: check.state,
        responder: agent,
        unseenByResponder: followUp.length,
        status: waits ? 'awaiting_input' : 'idle',
        ...(check.stop === null ? {} : await this.#stopChange(next, check.state)),
      });
      for (const m of append) {
        if (emitted.has(m.id)) out.push(m);
        else emit(m);
      }

      if (conditionError !== undefined) throw conditionError;
      if (check.stop !== null) return result('terminated', check.stop.content);
      if (waits) return result('awaiting_input', null);
    }
  }

  /** The state of the agent who speaks next: the current state, or the one a selector picks. */
  async #speaker(
    state: SessionState,
    signal: AbortSignal | undefined,
  ): Promise<{ speaking: string; selection?: AgentEvent }> {
    if (this.#driver.meta(state.machineState).kind === 'agent')
      return { speaking: state.machineState };
    const select = this.#orchestration.selectSpeaker;
    if (select === undefined) {
      throw new Error(
        `Workflow "${this.#orchestration.name}" has a select state but no selectSpeaker().`,
      );
    }
    let choice: Awaited<ReturnType<typeof select>>;
    try {
      choice = await select(state, signal);
    } catch (error) {
      if (signal?.aborted) throw new RunCancelled();
      throw error;
    }
    if (signal?.aborted) throw new RunCancelled();
    const chosen = typeof choice === 'string' ? choice : choice.agent;
    const speaking = this.#driver.next(state.machineState, {
      type: 'speaker_selected',
      agent: chosen,
    });
    if (this.#driver.meta(speaking).kind !== 'agent') {
      throw new Error(
        `Workflow "${this.#orchestration.name}" selected "${chosen}", which is not a participant.`,
      );
    }
    return typeof choice === 'string' ? { speaking } : { speaking, selection: choice.event };
  }

  /** The state a run without a task starts from (an input state when only the user can go on). */
  #resumeWithoutTask(): string {
    const state = this.#state;
    const driver = this.#driver;
    let current = state.machineState;
    if (driver.meta(current).kind === 'stopped') {
      current = driver.next(current, {
        type: 'resume',
        to: state.resumeState ?? driver.initialState,
      });
    }
    if (driver.meta(current).kind !== 'input') return current;
    // A fresh session started without a task: the first speaker begins.
    if (state.thread.length === 0 && state.pendingRequest === null) {
      return driver.next(current, this.#orchestration.routeUserInput(state, []));
    }
    this.#orchestration.checkWaiting?.(state);
    return current;
  }

  async #respond(
    agentName: string,
    speaking: string,
    state: SessionState,
    signal: AbortSignal | undefined,
    emit: (event: AgentEvent) => void,
  ): Promise<AgentResponse> {
    const agent = this.#agent(agentName);
    const { conversationFrom = 0, ...turn } = this.#orchestration.turnOptions(
      agentName,
      speaking,
      state,
    );
    // Own properties only: an agent may be named `toString` or `constructor`.
    const seen = Object.hasOwn(state.bookmarks, agentName) ? state.bookmarks[agentName] : 0;
    const bookmark = Math.max(seen ?? 0, conversationFrom);
    const newMessages = state.thread.slice(bookmark).filter(isChatMessage);
    const turnSignal = signal ?? new AbortController().signal;
    let response: AgentResponse;
    try {
      response = await traceAgentTurn(agentName, this.id, () =>
        agent.respond({
          conversation: conversationFrom > 0 ? state.thread.slice(conversationFrom) : state.thread,
          newMessages,
          signal: turnSignal,
          sessionId: this.id,
          emit,
          ...turn,
        }),
      );
    } catch (error) {
      if (signal?.aborted) throw new RunCancelled();
      const reason = redactSecrets(thrownText(error));
      throw new Error(`Agent "${agentName}" failed in session "${this.id}": ${reason}`, {
        cause: error,
      });
    }
    if (signal?.aborted) throw new RunCancelled();
    if (response === null || typeof response !== 'object' || !isChatMessage(response.chatMessage)) {
      throw new Error(
        `Agent "${agentName}" returned no chat message in session "${this.id}". respond() must ` +
          'resolve to { chatMessage, innerMessages? } with a ChatMessage.',
      );
    }
    return response;
  }

  #agent(name: string): ChatAgent {
    const agent = this.#orchestration.participants.get(name);
    if (agent === undefined) {
      throw new Error(
        `Session "${this.id}" expects participant "${name}", which this workflow lacks.`,
      );
    }
    return agent;
  }

  /** Feeds one delta to the stop rule; `before` is what precedes it in this step. */
  async #checkStop(
    delta: readonly AgentMessage[],
    conditionState: unknown = this.#state.termination,
    before: readonly AgentMessage[] = [],
  ): Promise<{ stop: StopMessage | null; state: unknown }> {
    const rule = this.#orchestration.stopRule;
    if (rule === undefined) return { stop: null, state: conditionState };
    const thread = (): readonly AgentMessage[] => [...this.#state.thread, ...before, ...delta];
    try {
      return await rule.check(delta, thread, conditionState);
    } catch (error) {
      const reason = redactSecrets(thrownText(error));
      throw new Error(`Termination condition failed in session "${this.id}": ${reason}`, {
        cause: error,
      });
    }
  }

  /** What a stop changes: the machine stops (remembering where), the condition is reset. */
  async #stopChange(
    machineState: string,
    conditionState: unknown,
  ): Promise<Omit<StepChange, 'event'>> {
    const rule = this.#orchestration.stopRule;
    const termination = rule === undefined ? conditionState : await rule.resetState(conditionState);
    return {
      machineState: this.#driver.next(machineState, { type: 'stop' }),
      resumeState: machineState,
      status: 'terminated',
      turn: 0,
      termination,
    };
  }

  async #cancel(
    result: (status: TaskResult['status'], stopReason: string | null) => TaskResult,
  ): Promise<TaskResult> {
    await this.#commit({ event: 'cancel', status: 'cancelled' });
    return result('cancelled', null);
  }
}
