import { setImmediate as nextMacrotask } from 'node:timers/promises';

import type { AgentPause, AgentResponse } from '../../agents/chat-agent.js';
import { trippedReason } from '../../agents/guardrail.js';
import type { AgentEvent, AgentMessage } from '../../messages/message.js';
import { handoffContext } from '../../messages/handoff-brief.js';
import { untilAborted } from '../../until-aborted.js';
import {
  chooseSpeaker,
  respondAs,
  withStarted,
  resumeWithoutTask,
  RunCancelled,
  type SpeakerTurn,
  type TurnContext,
} from './agent-turn.js';
import { continuePausedTurn, pausedForApproval } from './approval-turn.js';
import * as budgets from './budget-request.js';
import { turnStarts } from './tool-starts.js';
import { groupStep } from './group-step.js';
import { announceSpeakers } from './speakers-listener.js';
import { checkOutput, trippedEvent } from './guardrail-checks.js';
import type { StateMeta } from '../orchestration.js';
import type { RunOptions, Task, TaskResult } from '../runnable.js';
import { NO_MESSAGES, type SessionState, withThread } from '../state/session-state.js';
import type { Step } from '../state/step.js';
import { threadOf } from '../state/state-thread.js';
import { freshInput, handOverOf } from './run-observer.js';
import type { StopCheck } from './session-stop.js';
import {
  answerStep,
  approvalPauseStep,
  askUserStep,
  type StopChange,
  trippedStep,
} from '../state/step-changes.js';
import { takeInput } from './task-input.js';
import { taskResult, toTaskMessages } from './task-messages.js';

// Turns a run takes between two macrotasks it waits for: agents that answer at once take 10–50 µs
// a turn, so a timer or a signal handler waits about a millisecond for its turn.
const TURNS_PER_MACROTASK = 32;

/** Receives every message of a run as it is produced (streaming chunks included). */
export type MessageSink = (message: AgentMessage) => void;

const ignore = (): void => {};
/** A run without a sink streams nothing (see `streamTo`): its turns share this empty set. */
const NOTHING_STREAMED: Set<string> = new Set();

/** What a run needs of its session: the state, and the effects only the session may perform. */
export interface RunHost extends TurnContext {
  /** The state as last committed. */
  readonly state: SessionState;
  /** Records one step and makes it the state (without a store: on return, nothing to await). */
  commit(step: Step): Promise<void> | undefined;
  /** Feeds one delta (after `before` in this step) to the stop rule; without one: at once. */
  checkStop(
    delta: readonly AgentMessage[],
    conditionState?: unknown,
    before?: readonly AgentMessage[],
  ): StopCheck | Promise<StopCheck>;
  /** What a stop for `reason` changes: the machine stops, the condition is reset, and so on. */
  stopChange(machineState: string, conditionState: unknown, reason: string): Promise<StopChange>;
  /**
   * Rejects when this process no longer holds the session (before a model call or a commit);
   * undefined when the session has no store, so an in-memory run awaits nothing.
   */
  confirmLease(step: number): Promise<void> | undefined;
}

/**
 * One run of a session: the thin runner around the pure steps of `step-changes.ts`. It performs
 * the effects — agent turns, guardrail and stop checks, commits — and streams what each step
 * records, one step at a time, until the session waits, stops or is cancelled.
 */
export class SessionRun {
  readonly host: RunHost;
  readonly options: RunOptions;
  readonly sink: MessageSink | undefined;
  /** Everything this run produced, in order (the result's messages). */
  readonly out: AgentMessage[] = [];
  /** How many messages this run has put on its stream so far. */
  streamed = 0;

  constructor(host: RunHost, options: RunOptions, sink: MessageSink | undefined) {
    this.host = host;
    this.options = options;
    this.sink =
      sink === undefined
        ? undefined
        : (message) => {
            this.streamed++;
            sink(message);
          };
  }

  /** Streams `message` and keeps it for the result. */
  readonly emit = (message: AgentMessage): void => {
    this.out.push(message);
    this.sink?.(message);
  };

  /** Keeps a step's messages for the result; streams those not streamed while the turn ran. */
  record(messages: readonly AgentMessage[], streamed: ReadonlySet<string>): void {
    for (const m of messages) {
      if (streamed.has(m.id)) this.out.push(m);
      else this.emit(m);
    }
  }

  /**
   * A sink for one turn's events that notes which were streamed already. A run that streams
   * nothing (no sink, none given) notes nothing: its turns may share `NOTHING_STREAMED`.
   */
  streamTo(streamed: Set<string>, sink?: (event: AgentEvent) => void): (event: AgentEvent) => void {
    if (sink === undefined) {
      const own = this.sink;
      if (own === undefined) return ignore;
      sink = own;
    }
    return (event: AgentEvent): void => {
      if (event.type !== 'ModelClientStreamingChunkEvent') streamed.add(event.id);
      sink(event);
    };
  }

  result(status: TaskResult['status'], stopReason: string | null): TaskResult {
    const host = this.host;
    return taskResult(host.id, this.out, status, stopReason, host.state.pendingRequest);
  }

  async cancel(): Promise<TaskResult> {
    await this.host.commit({ kind: 'cancel', status: 'cancelled' });
    return this.result('cancelled', null);
  }

  /**
   * Runs the session until it waits, stops or is cancelled. Whatever the run awaits when its signal
   * aborts (a model call, a user callback raced with `untilAborted`) ends it as `cancelled`.
   */
  async run(task: Task | undefined): Promise<TaskResult> {
    try {
      return await this.#run(task);
    } catch (error) {
      const signal = this.options.signal;
      if (error instanceof RunCancelled || (signal?.aborted === true && error === signal.reason)) {
        return this.cancel();
      }
      if (error instanceof budgets.RefusedTurn) return budgets.refusedTurn(this, error);
      throw error;
    }
  }

  async #run(task: Task | undefined): Promise<TaskResult> {
    const state = this.host.state;
    const taskMessages = freshInput(toTaskMessages(task), this.options, this.host.id, state);
    const ended = budgets.pausedForBudget(state)
      ? await budgets.continueAfterBudget(this, taskMessages)
      : pausedForApproval(state)
        ? await continuePausedTurn(this, taskMessages)
        : taskMessages.length > 0
          ? await takeInput(this, taskMessages)
          : await this.#resume(state);
    return ended ?? this.#loop();
  }

  /** A run without a task: a stopped or cancelled session goes back to where it was. */
  async #resume(state: SessionState): Promise<TaskResult | undefined> {
    const resumed = resumeWithoutTask(this.host, state);
    const waiting = this.host.driver.meta(resumed).kind === 'input';
    const status = waiting ? 'awaiting_input' : 'idle';
    if (resumed !== state.machineState || status !== state.status) {
      await this.host.commit({ kind: 'resume', machineState: resumed, resumeState: null, status });
    }
    return waiting ? this.result('awaiting_input', null) : undefined;
  }

  /** Steps until the session waits, stops or is cancelled. */
  async #loop(): Promise<TaskResult> {
    const { host, options } = this;
    const { driver, orchestration } = host;
    const handOver = handOverOf(options);
    for (let turns = 0; ; turns++) {
      const state = host.state;
      const meta = driver.meta(state.machineState);
      if (meta.kind !== 'agent' && meta.kind !== 'select' && meta.kind !== 'group')
        return this.result('awaiting_input', null);
      if (state.turn >= orchestration.maxTurns) {
        const reason = `Maximum number of turns ${orchestration.maxTurns} reached.`;
        await host.commit({
          kind: 'stop',
          complete: false,
          ...(await host.stopChange(state.machineState, state.termination, reason)),
        });
        return this.result('terminated', reason);
      }
      // Agents that answer without I/O chain only microtasks: a run that never stops would starve
      // the event loop, and no timer, abort or signal handler could end it (issue 33). A macrotask
      // can cost more than such a turn (setImmediate: 2–20 µs), so it comes every so many turns.
      if (turns > 0 && turns % TURNS_PER_MACROTASK === 0) await nextMacrotask();
      if (options.signal?.aborted) return this.cancel();
      // A run that lost its lease or its store stops here, before paying for a model call.
      const confirming = host.confirmLease(state.step + 1);
      if (confirming !== undefined) await confirming;
      // Handed on (`HAND_OVER`): the turn made is committed; the next is for another process.
      if (turns > 0 && handOver?.aborted === true) return this.cancel();
      const ended = meta.kind === 'group' ? await groupStep(this, state) : await this.#turn(state);
      if (ended !== undefined) return ended;
    }
  }

  /** One agent's turn (after a selector's choice, in a select state). */
  async #turn(state: SessionState): Promise<TaskResult | undefined> {
    const { host, options } = this;
    let chosen: SpeakerTurn;
    const meta = host.driver.meta(state.machineState);
    if (meta.kind === 'agent') {
      // The usual turn: the state names its speaker, and no selector is awaited.
      chosen = { speaking: state.machineState, agent: meta.agent };
    } else {
      chosen = await chooseSpeaker(host, state, options.signal);
    }
    if ('waiting' in chosen) {
      const change = askUserStep(chosen.waiting, chosen.agent, chosen.prompt);
      await host.commit(change);
      for (const m of change.append ?? []) this.emit(m);
      return this.result('awaiting_input', null);
    }
    const { speaking, agent, selection } = chosen;
    const streamed = this.sink === undefined ? NOTHING_STREAMED : new Set<string>();
    if (selection !== undefined && this.sink !== undefined) {
      streamed.add(selection.id);
      this.sink(selection);
    }
    announceSpeakers(options, [agent], this.streamed);
    // The selector's choice is part of what the chosen agent sees (it is committed with its answer).
    const seen =
      selection === undefined ? state : withThread(state, threadOf(state).append([selection]));
    const response: AgentResponse | AgentPause = await respondAs(
      host,
      agent,
      speaking,
      seen,
      options.signal,
      this.streamTo(streamed),
      turnStarts(this, streamed),
    );
    const before = selection === undefined ? NO_MESSAGES : [selection];
    if ('approvalRequest' in response) {
      const change = approvalPauseStep(agent, speaking, response, before, { responders: [agent] });
      await host.commit(change);
      this.record(change.append ?? [], streamed);
      return this.result('awaiting_input', null);
    }
    const inner = response.innerMessages ?? [];
    const chatMessage = response.chatMessage;
    const guardrails = host.orchestration.guardrails?.output;
    const checking =
      guardrails === undefined
        ? null
        : checkOutput(
            guardrails,
            host.id,
            agent,
            chatMessage,
            () => [...threadOf(state), ...before, ...inner, chatMessage],
            options.signal,
            host.turnData?.(),
          );
    // Without output guardrails nothing is awaited: every await on the hot path costs a tick.
    const tripped = checking === null ? null : await checking;
    if (tripped !== null) {
      const reason = trippedReason(tripped);
      const stop = await host.stopChange(speaking, state.termination, reason);
      const change = trippedStep(tripped, [...before, ...inner, trippedEvent(tripped)], stop);
      await host.commit(change);
      this.record(change.append ?? [], streamed);
      return this.result('terminated', reason);
    }
    return this.#answer(state, agent, speaking, selection, response, streamed);
  }

  /** Commits an agent's answer with where it leads and the stop rule's verdict on it. */
  async #answer(
    state: SessionState,
    agent: string,
    speaking: string,
    selection: AgentEvent | undefined,
    response: AgentResponse,
    streamed: ReadonlySet<string>,
  ): Promise<TaskResult | undefined> {
    const { host, options } = this;
    const inner = response.innerMessages;
    const delta: AgentMessage[] = inner?.length
      ? [...inner, response.chatMessage]
      : [response.chatMessage];
    const routing = host.orchestration.routeResponse(agent, response, state, speaking);
    const guards = handoffContext(threadOf(state), agent);
    const next = host.driver.next(speaking, routing.event, host.turnData?.(), guards);
    const followUp = routing.followUp;
    // A condition that fails does not lose the answer it was checking: the answer is committed
    // (with the condition state as it was) and the failure rejects the run after that.
    let check: StopCheck;
    let conditionError: unknown;
    try {
      // Without a stop rule the verdict comes at once: nothing to await.
      const checking = host.checkStop(withStarted(response, delta), state.termination);
      check = checking instanceof Promise ? await untilAborted(checking, options.signal) : checking;
      if (check.stop === null && followUp !== undefined && followUp.length > 0) {
        check = await untilAborted(host.checkStop(followUp, check.state, delta), options.signal);
      }
    } catch (error) {
      // A check the signal interrupted is no verdict: the answer is redone by the next run.
      if (options.signal?.aborted === true) throw new RunCancelled();
      conditionError = error;
      check = { stop: null, state: state.termination };
    }
    const nextMeta: StateMeta = host.driver.meta(next);
    const reason = check.stop?.content;
    const stop =
      reason === undefined ? undefined : await host.stopChange(next, check.state, reason);
    const change = answerStep({
      agent,
      selection,
      response,
      delta,
      routing,
      next,
      nextMeta,
      turn: state.turn,
      check,
      stop,
    });
    // Without a store the step is committed on return: nothing to await.
    const committing = host.commit(change);
    if (committing !== undefined) await committing;
    this.record(change.append ?? [], streamed);
    if (conditionError !== undefined) throw conditionError;
    if (check.stop !== null) return this.result('terminated', check.stop.content);
    if (nextMeta.kind === 'input') return this.result('awaiting_input', null);
    return undefined;
  }
}
