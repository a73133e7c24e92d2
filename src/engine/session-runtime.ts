import { newId } from '../ids.js';

import type { AgentPause, AgentResponse } from '../agents/chat-agent.js';
import { firstTripped, infoText, type Tripped, trippedReason } from '../agents/guardrail.js';
import { ConfigError, SessionBusyError } from '../errors.js';
import type { AgentMessage, StopMessage, ToolApprovalRequestEvent } from '../messages/message.js';
import { isChatMessage } from '../messages/message.js';
import { guardrailTrippedEvent, userInputRequestedEvent } from '../messages/message-factories.js';
import { messageToText } from '../messages/message-text.js';
import {
  appended,
  chooseSpeaker,
  respondAs,
  resumeWithoutTask,
  RunCancelled,
  type SpeakerTurn,
  type TurnContext,
} from './agent-turn.js';
import { undecidedAfter } from './approval-decisions.js';
import { traceRun } from '../observability/gen-ai-spans.js';
import type { CheckpointLink } from './checkpoint-link.js';
import type { MachineDriver } from './machine-driver.js';
import type { GroupAnswer, Orchestration } from './orchestration.js';
import type { RunOptions, SessionInfo, Task, TaskResult } from './runnable.js';
import type { CheckpointInfo } from './session-log.js';
import {
  applyStep,
  type PendingRequest,
  type SessionState,
  type StepChange,
} from './session-state.js';
import { SessionStop, type StopCheck } from './session-stop.js';
import { taskResult, toTaskMessages } from './task-messages.js';

/** Receives every message of a run as it is produced (streaming chunks included). */
export type MessageSink = (message: AgentMessage) => void;

/** Where a session comes from: its own log, or a past step of another session (a fork). */
export interface SessionOrigin {
  readonly link?: CheckpointLink;
  readonly fork?: { readonly session: string; readonly step: number };
}

/** A pending request with its kind (sessions stored before approvals existed have none). */
function withKind(request: PendingRequest): PendingRequest {
  return request.kind === undefined ? { ...request, kind: 'input' } : request;
}

/** The pending request of a turn that pauses for the approval of `request`'s calls. */
function approvalRequestOf(agent: string, request: ToolApprovalRequestEvent): PendingRequest {
  return {
    id: newId(),
    agent,
    prompt: messageToText(request),
    kind: 'approval',
    calls: request.content,
  };
}

/** An agent's final answer (a text or structured message): what output guardrails check. */
function isAnswer(message: AgentMessage): boolean {
  return message.type === 'TextMessage' || message.type === 'StructuredMessage';
}

/**
 * One conversation: its state and the loop that advances it. Each pass of the loop is one step
 * (one agent response, or one user input) committed before the next begins.
 */
export class SessionRuntime implements TurnContext {
  readonly id: string;
  readonly orchestration: Orchestration;
  readonly driver: MachineDriver;
  readonly #link: CheckpointLink | undefined;
  readonly #origin: SessionOrigin;
  #state: SessionState;
  #loading: Promise<void> | undefined;
  #loaded = false;
  #running = false;
  /** This session's own stop rule and `stop()` requests. */
  readonly #stop: SessionStop;

  constructor(
    id: string,
    orchestration: Orchestration,
    driver: MachineDriver,
    fresh: SessionState,
    origin: SessionOrigin = {},
  ) {
    this.id = id;
    this.orchestration = orchestration;
    this.driver = driver;
    this.#state = fresh;
    this.#link = origin.link;
    this.#origin = origin;
    this.#stop = new SessionStop(id, orchestration.stopRule);
  }

  /**
   * True when the session can be dropped from memory and reloaded from its store later: it is not
   * running, has no stop request waiting, and a fork it starts from has been written.
   */
  get evictable(): boolean {
    return (
      !this.#running && !this.#stop.requested && (this.#origin.fork === undefined || this.#loaded)
    );
  }

  /** True while a run (or a reset, a loadState) is in progress here. */
  get running(): boolean {
    return this.#running;
  }

  /**
   * Stops this session at its next check (after the current agent turn, or on the next run's
   * input), with `reason` as the stop reason.
   */
  stop(reason: string): void {
    this.#stop.request(reason);
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
        const before = await this.#link.lease.runningElsewhere();
        const step = s.step;
        s = await this.current();
        running = before || (await this.#link.lease.runningElsewhere());
        if (s.step === step) break;
      }
    }
    const status = running ? 'running' : s.status;
    return status === 'awaiting_input' && s.pendingRequest !== null
      ? { status, pendingRequest: withKind(s.pendingRequest), step: s.step }
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
    return traceRun(this.orchestration.name, this.id, () =>
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
        await this.#link.lease.acquire(this.#state.step + 1);
        leased = true;
        this.#state = await this.#link.catchUp(this.#state);
      }
      return await work();
    } finally {
      if (leased) await this.#link?.lease.release();
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
    })()
      .then(() => {
        this.#loaded = true;
      })
      .catch((error: unknown) => {
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
    const orchestration = this.orchestration;
    const driver = this.driver;
    const taskMessages = toTaskMessages(task);
    const out: AgentMessage[] = [];
    const emit = (m: AgentMessage): void => {
      out.push(m);
      sink?.(m);
    };
    const result = (status: TaskResult['status'], stopReason: string | null): TaskResult =>
      taskResult(this.id, out, status, stopReason, this.#state.pendingRequest);

    const approvals = this.#state.pendingRequest?.kind === 'approval' ? this.#state : undefined;
    if (approvals !== undefined && this.#state.status === 'awaiting_input') {
      // A paused turn: only decisions (or a reply that rejects them) continue it, and only the
      // paused agent, whatever the routing.
      if (taskMessages.length === 0) return result('awaiting_input', null);
      const pending = approvals.pendingRequest as PendingRequest;
      const undecided = undecidedAfter(this.id, pending, taskMessages);
      const tripped = await this.#checkInput(taskMessages, options.signal);
      const check =
        tripped === null
          ? await this.#checkStop(taskMessages)
          : { stop: null, state: this.#state.termination };
      const waits = undecided.length > 0 && tripped === null && check.stop === null;
      const append: AgentMessage[] = [...taskMessages];
      if (tripped !== null) append.push(this.#trippedEvent(tripped));
      const stops = tripped !== null || check.stop !== null;
      await this.#commit({
        event: 'user_input',
        append,
        pendingRequest: waits ? { ...pending, calls: undecided } : null,
        status: waits ? 'awaiting_input' : 'idle',
        termination: check.state,
        ...(stops ? await this.#stopChange(approvals.machineState, check.state) : {}),
      });
      if (options.outputTaskMessages !== false) for (const m of taskMessages) emit(m);
      if (tripped !== null) emit(append[append.length - 1] as AgentMessage);
      if (tripped !== null) return result('terminated', trippedReason(tripped));
      if (check.stop !== null) return result('terminated', check.stop.content);
      if (waits) {
        if (undecided.length < (pending.calls ?? []).length) await this.#runDecided(options, emit);
        return result('awaiting_input', null);
      }
    } else if (taskMessages.length > 0) {
      undecidedAfter(
        this.id,
        null,
        taskMessages.filter((m) => m.type === 'ToolApprovalResponseEvent'),
      );
      const state = this.#state;
      const meta = driver.meta(state.machineState);
      const waiting = meta.kind === 'input' || meta.kind === 'stopped';
      const machineState = waiting
        ? driver.next(state.machineState, orchestration.routeUserInput(state, taskMessages))
        : state.machineState;
      const tripped = await this.#checkInput(taskMessages, options.signal);
      const check =
        tripped === null
          ? await this.#checkStop(taskMessages)
          : { stop: null, state: state.termination };
      const stops = tripped !== null || check.stop !== null;
      const progress = orchestration.progressOnInput?.(state);
      await this.#commit({
        event: 'user_input',
        append: tripped === null ? taskMessages : [...taskMessages, this.#trippedEvent(tripped)],
        machineState,
        resumeState: null,
        pendingRequest: null,
        status: 'idle',
        termination: check.state,
        ...(progress === undefined ? {} : { progress }),
        ...(stops ? await this.#stopChange(machineState, check.state) : {}),
      });
      if (options.outputTaskMessages !== false) for (const m of taskMessages) emit(m);
      if (tripped !== null) {
        emit(this.#state.thread[this.#state.thread.length - 1] as AgentMessage);
        return result('terminated', trippedReason(tripped));
      }
      if (check.stop !== null) return result('terminated', check.stop.content);
    } else {
      const resumed = resumeWithoutTask(this, this.#state);
      const waiting = this.driver.meta(resumed).kind === 'input';
      const status = waiting ? 'awaiting_input' : 'idle';
      if (resumed !== this.#state.machineState || status !== this.#state.status) {
        await this.#commit({ event: 'resume', machineState: resumed, resumeState: null, status });
      }
      if (waiting) return result('awaiting_input', null);
    }

    for (;;) {
      const state = this.#state;
      const meta = driver.meta(state.machineState);
      if (meta.kind !== 'agent' && meta.kind !== 'select' && meta.kind !== 'group')
        return result('awaiting_input', null);
      if (state.turn >= orchestration.maxTurns) {
        const reason = `Maximum number of turns ${orchestration.maxTurns} reached.`;
        await this.#commit({
          event: 'stop',
          ...(await this.#stopChange(state.machineState, state.termination)),
        });
        return result('terminated', reason);
      }
      if (options.signal?.aborted) return this.#cancel(result);
      // A run that lost its lease or its store stops here, before paying for a model call.
      if (this.#link !== undefined) await this.#link.lease.confirm(state.step + 1);
      if (meta.kind === 'group') {
        const ended = await this.#groupStep(state, options, out, emit, sink, result);
        if (ended !== undefined) return ended;
        continue;
      }

      let chosen: SpeakerTurn;
      try {
        chosen = await chooseSpeaker(this, state, options.signal);
      } catch (error) {
        if (error instanceof RunCancelled) return this.#cancel(result);
        throw error;
      }
      if ('waiting' in chosen) {
        await this.#askUser(chosen, emit);
        return result('awaiting_input', null);
      }
      const { speaking, selection } = chosen;
      const agent = (driver.meta(speaking) as { agent: string }).agent;
      const emitted = new Set<string>();
      let response: AgentResponse | AgentPause;
      try {
        if (selection !== undefined) {
          emitted.add(selection.id);
          sink?.(selection);
        }
        // The selector's choice is part of what the chosen agent sees (it is committed with its answer).
        const seen =
          selection === undefined ? state : { ...state, thread: appended(state.thread, selection) };
        response = await respondAs(this, agent, speaking, seen, options.signal, (event) => {
          if (event.type !== 'ModelClientStreamingChunkEvent') emitted.add(event.id);
          sink?.(event);
        });
      } catch (error) {
        if (error instanceof RunCancelled) return this.#cancel(result);
        throw error;
      }

      if ('approvalRequest' in response) {
        // The turn pauses for approvals: its events and the request are one step, and only this
        // agent (in this machine state) continues it.
        const request = response.approvalRequest;
        const inner = response.innerMessages.filter((m) => m !== request);
        const append: AgentMessage[] = [
          ...(selection === undefined ? [] : [selection]),
          ...inner,
          request,
        ];
        const pendingRequest = approvalRequestOf(agent, request);
        await this.#commit({
          event: `approval_request:${agent}`,
          append,
          machineState: speaking,
          pendingRequest,
          turn: 0,
          responder: agent,
          status: 'awaiting_input',
        });
        for (const m of append) {
          if (emitted.has(m.id)) out.push(m);
          else emit(m);
        }
        return result('awaiting_input', null);
      }
      const chatMessage = response.chatMessage;
      const tripped = isAnswer(chatMessage)
        ? await this.#checkOutput(
            agent,
            chatMessage,
            [
              ...state.thread,
              ...(selection ? [selection] : []),
              ...(response.innerMessages ?? []),
              chatMessage,
            ],
            options.signal,
          )
        : null;
      if (tripped !== null) {
        // The answer is not recorded: only what led to it and the event.
        const event = this.#trippedEvent(tripped);
        const append: AgentMessage[] = [
          ...(selection === undefined ? [] : [selection]),
          ...(response.innerMessages ?? []),
          event,
        ];
        await this.#commit({
          event: `guardrail:${tripped.guardrail.name}`,
          append,
          ...(await this.#stopChange(speaking, state.termination)),
        });
        for (const m of append) {
          if (emitted.has(m.id)) out.push(m);
          else emit(m);
        }
        return result('terminated', trippedReason(tripped));
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
        pendingRequest = {
          id: newId(),
          agent,
          prompt: messageToText(response.chatMessage),
          kind: 'input' as const,
        };
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
        ...(routing.progress === undefined ? {} : { progress: routing.progress }),
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

  /** A selector found nobody to speak: the session pauses with `agent`'s request (one step). */
  async #askUser(
    ask: Extract<SpeakerTurn, { waiting: string }>,
    emit: (m: AgentMessage) => void,
  ): Promise<void> {
    const pendingRequest = {
      id: newId(),
      agent: ask.agent,
      prompt: ask.prompt,
      kind: 'input' as const,
    };
    const request = userInputRequestedEvent({
      source: ask.agent,
      requestId: pendingRequest.id,
      content: ask.prompt,
    });
    await this.#commit({
      event: `user_asked:${ask.agent}`,
      append: [request],
      machineState: ask.waiting,
      pendingRequest,
      turn: 0,
      status: 'awaiting_input',
    });
    emit(request);
  }

  /**
   * One step of a `group` state: the participants the orchestration names answer concurrently,
   * each on the thread as it is now, and their answers are committed together in the named order.
   * Returns the run's result when the run ends in this step.
   *
   * A member that pauses for approvals pauses the session (the others' answers are committed with
   * the pause); when two pause at once, the later ones are asked again once the first is decided.
   */
  async #groupStep(
    state: SessionState,
    options: RunOptions,
    out: AgentMessage[],
    emit: (m: AgentMessage) => void,
    sink: MessageSink | undefined,
    result: (status: TaskResult['status'], stopReason: string | null) => TaskResult,
  ): Promise<TaskResult | undefined> {
    const orchestration = this.orchestration;
    const driver = this.driver;
    const { selectSpeakers, routeGroup } = orchestration;
    if (selectSpeakers === undefined || routeGroup === undefined) {
      throw new Error(
        `Workflow "${orchestration.name}" has a group state but no selectSpeakers() and routeGroup().`,
      );
    }
    const group = selectSpeakers.call(orchestration, state);
    if ('complete' in group) {
      await this.#commit({
        event: 'complete',
        ...(await this.#stopChange(state.machineState, state.termination)),
      });
      return result('terminated', group.complete);
    }
    // Each answer is one turn: only as many members answer as turns remain.
    const agents = group.agents.slice(0, Math.max(1, orchestration.maxTurns - state.turn));
    const emitted = new Set<string>();
    const settled = await Promise.allSettled(
      agents.map((agent) =>
        respondAs(this, agent, state.machineState, state, options.signal, (event) => {
          if (event.type !== 'ModelClientStreamingChunkEvent') emitted.add(event.id);
          sink?.(event);
        }),
      ),
    );
    const responses: (AgentResponse | AgentPause)[] = [];
    for (const outcome of settled) {
      if (outcome.status === 'fulfilled') responses.push(outcome.value);
      else if (outcome.reason instanceof RunCancelled) return this.#cancel(result);
    }
    const failure = settled.find((o) => o.status === 'rejected');
    if (failure !== undefined) throw (failure as PromiseRejectedResult).reason;

    const record = (messages: readonly AgentMessage[]): void => {
      for (const m of messages) {
        if (emitted.has(m.id)) out.push(m);
        else emit(m);
      }
    };
    const append: AgentMessage[] = [];
    const answers: GroupAnswer[] = [];
    let paused: { agent: string; pause: AgentPause } | undefined;
    let tripped: Tripped | null = null;
    for (const [i, agent] of agents.entries()) {
      const response = responses[i] as AgentResponse | AgentPause;
      if ('approvalRequest' in response) {
        paused ??= { agent, pause: response };
        continue;
      }
      const inner = response.innerMessages ?? [];
      if (tripped === null && isAnswer(response.chatMessage)) {
        const seen = [...state.thread, ...inner, response.chatMessage];
        tripped = await this.#checkOutput(agent, response.chatMessage, seen, options.signal);
        if (tripped !== null) {
          // The answer is not recorded: only what led to it and the event.
          append.push(...inner, this.#trippedEvent(tripped));
          continue;
        }
      }
      answers.push({ agent, response });
      append.push(...inner, response.chatMessage);
    }
    const responders = answers.map((a) => a.agent);
    const routing =
      answers.length === 0 ? undefined : routeGroup.call(orchestration, answers, state);
    const progress = routing?.progress === undefined ? {} : { progress: routing.progress };

    if (tripped !== null) {
      await this.#commit({
        event: `guardrail:${tripped.guardrail.name}`,
        append,
        responders,
        ...progress,
        ...(await this.#stopChange(state.machineState, state.termination)),
      });
      record(append);
      return result('terminated', trippedReason(tripped));
    }
    if (paused !== undefined) {
      const { agent, pause } = paused;
      const speaking = driver.agentState(agent);
      if (speaking === undefined) {
        throw new Error(
          `Workflow "${orchestration.name}" has no state where "${agent}" alone speaks, so its ` +
            'turn cannot pause for approvals.',
        );
      }
      const request = pause.approvalRequest;
      append.push(...pause.innerMessages.filter((m) => m !== request), request);
      const pendingRequest = approvalRequestOf(agent, request);
      await this.#commit({
        event: `approval_request:${agent}`,
        append,
        machineState: speaking,
        pendingRequest,
        turn: 0,
        responders,
        ...progress,
        status: 'awaiting_input',
      });
      record(append);
      return result('awaiting_input', null);
    }

    if (routing === undefined) {
      throw new Error(`Workflow "${orchestration.name}" named nobody to answer in a group step.`);
    }
    const next = driver.next(state.machineState, routing.event);
    let check: { stop: StopMessage | null; state: unknown } = {
      stop: null,
      state: state.termination,
    };
    let conditionError: unknown;
    try {
      check = await this.#checkStop(append, state.termination);
    } catch (error) {
      conditionError = error;
    }
    const waits = driver.meta(next).kind === 'input';
    await this.#commit({
      event: `agent_response:${responders.join(',')}`,
      append,
      machineState: next,
      turn: waits ? 0 : state.turn + answers.length,
      termination: check.state,
      responders,
      ...progress,
      status: waits ? 'awaiting_input' : 'idle',
      ...(check.stop === null ? {} : await this.#stopChange(next, check.state)),
    });
    record(append);
    if (conditionError !== undefined) throw conditionError;
    if (check.stop !== null) return result('terminated', check.stop.content);
    if (waits) return result('awaiting_input', null);
    return undefined;
  }

  /**
   * Some calls of a paused turn were decided and others not: the paused agent runs the decided
   * ones now (one step), and the turn stays paused. A cancelled run leaves them for later.
   */
  async #runDecided(options: RunOptions, emit: (m: AgentMessage) => void): Promise<void> {
    const state = this.#state;
    const agent = (state.pendingRequest as PendingRequest).agent;
    const emitted = new Set<string>();
    let response: AgentResponse | AgentPause;
    try {
      response = await respondAs(
        this,
        agent,
        state.machineState,
        state,
        options.signal,
        (event) => {
          if (event.type !== 'ModelClientStreamingChunkEvent') emitted.add(event.id);
          emit(event);
        },
      );
    } catch (error) {
      if (error instanceof RunCancelled) return;
      throw error;
    }
    if (!('approvalRequest' in response)) {
      throw new Error(
        `Agent "${agent}" answered while tool calls of its turn still await approval in session ` +
          `"${this.id}". Its takeTurn() must pause again until every call is decided.`,
      );
    }
    const request = response.approvalRequest;
    const append = response.innerMessages.filter((m) => m !== request && m.id !== request.id);
    if (append.length === 0) return;
    await this.#commit({ event: `approval_progress:${agent}`, append });
  }

  /** The first input guardrail that trips on the task's chat messages, or null. */
  async #checkInput(
    task: readonly AgentMessage[],
    signal: AbortSignal | undefined,
  ): Promise<Tripped | null> {
    const guardrails = this.orchestration.guardrails?.input ?? [];
    const chat = task.filter(isChatMessage);
    if (guardrails.length === 0 || chat.length === 0) return null;
    return firstTripped(guardrails, {
      text: chat.map((m) => messageToText(m)).join('\n'),
      messages: [...this.#state.thread, ...task],
      agent: null,
      sessionId: this.id,
      signal: signal ?? new AbortController().signal,
    });
  }

  /** The first output guardrail that trips on `agent`'s answer, or null. */
  async #checkOutput(
    agent: string,
    answer: AgentMessage,
    messages: readonly AgentMessage[],
    signal: AbortSignal | undefined,
  ): Promise<Tripped | null> {
    const guardrails = this.orchestration.guardrails?.output ?? [];
    if (guardrails.length === 0) return null;
    return firstTripped(guardrails, {
      text: messageToText(answer),
      messages,
      agent,
      sessionId: this.id,
      signal: signal ?? new AbortController().signal,
    });
  }

  #trippedEvent(tripped: Tripped): AgentMessage {
    return guardrailTrippedEvent({
      source: tripped.guardrail.name,
      content: infoText(tripped.info),
    });
  }

  /** Feeds one delta to the stop rule; `before` is what precedes it in this step. */
  #checkStop(
    delta: readonly AgentMessage[],
    conditionState: unknown = this.#state.termination,
    before: readonly AgentMessage[] = [],
  ): Promise<StopCheck> {
    return this.#stop.check(delta, conditionState, () => [
      ...this.#state.thread,
      ...before,
      ...delta,
    ]);
  }

  /** What a stop changes: the machine stops (remembering where), the condition is reset. */
  #stopChange(machineState: string, conditionState: unknown): Promise<Omit<StepChange, 'event'>> {
    return this.#stop.change(this.driver, machineState, conditionState);
  }

  async #cancel(
    result: (status: TaskResult['status'], stopReason: string | null) => TaskResult,
  ): Promise<TaskResult> {
    await this.#commit({ event: 'cancel', status: 'cancelled' });
    return result('cancelled', null);
  }
}
