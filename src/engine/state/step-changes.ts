import { newId } from '../../ids.js';

import type { AgentPause, AgentResponse } from '../../agents/chat-agent.js';
import type { Tripped } from '../../agents/guardrail.js';
import type {
  AgentEvent,
  AgentMessage,
  ToolApprovalRequestEvent,
  ToolInDoubtEvent,
} from '../../messages/message.js';
import { userInputRequestedEvent } from '../../messages/message-factories.js';
import { messageToText } from '../../messages/message-text.js';
import type { ResponseRouting, StateMeta } from '../orchestration.js';
import type { PendingRequest, SessionState } from './session-state.js';
import type { Step, StepBody, StepFields } from './step.js';
import type { StopCheck } from '../run/session-stop.js';

// The steps of a run as pure functions: from the state and what happened (an answer, a pause, a
// tripped guardrail, the stop rule's verdict) to the one typed `Step` that records it. They make
// no model call, commit nothing and read no clock; the runner (`session-run.ts`) performs the
// effects and hands each step to the store. Only request ids are drawn fresh.

/** What a stop changes (see `SessionStop.change`), computed by the runner when a check stops. */
export type StopChange = StepFields;

/** The pending request of a turn that pauses for the approval of `request`'s calls. */
export function approvalRequestOf(
  agent: string,
  request: ToolApprovalRequestEvent | ToolInDoubtEvent,
  waitingFor?: readonly string[],
): PendingRequest {
  return {
    id: newId(),
    agent,
    prompt: messageToText(request),
    kind: request.type === 'ToolInDoubtEvent' ? 'in_doubt' : 'approval',
    calls: request.content,
    ...(waitingFor === undefined ? {} : { waitingFor }),
  };
}

/**
 * `agent`'s turn paused for approvals in machine state `speaking`: what it did so far and the
 * request are one step, and only this agent (in that state) continues it. `before` is what the
 * step records first (a selector's event, or the answers of the others in a group step).
 */
export function approvalPauseStep(
  agent: string,
  speaking: string,
  pause: AgentPause,
  before: readonly AgentMessage[],
  bookmarks: Pick<StepBody, 'responders' | 'progress'>,
): Step {
  const request = pause.approvalRequest;
  return {
    kind: 'pause',
    agents: [agent],
    append: [...before, ...pause.innerMessages.filter((m) => m !== request), request],
    machineState: speaking,
    pendingRequest: approvalRequestOf(agent, request, pause.waitingFor),
    turn: 0,
    ...bookmarks,
    status: 'awaiting_input',
  };
}

/**
 * A guardrail tripped on an answer: the answer is not recorded, only `append` (what led to it,
 * the guardrail's event, and in a group step the others' answers); the session stops.
 */
export function trippedStep(
  tripped: Tripped,
  append: readonly AgentMessage[],
  stop: StopChange,
  extra: Pick<StepBody, 'responders' | 'progress'> = {},
): Step {
  return { kind: 'tripped', guardrail: tripped.guardrail.name, append, ...extra, ...stop };
}

/** What the runner learned about one agent answer in the machine state `speaking`. */
export interface AnswerFacts {
  readonly agent: string;
  readonly selection: AgentEvent | undefined;
  readonly response: AgentResponse;
  /**
   * The answer's messages (its inner messages, then the chat message) in an array the step may
   * take as its own; made from `response` when not given.
   */
  readonly delta?: AgentMessage[];
  readonly routing: ResponseRouting;
  /** The machine state the routing leads to, and what it means. */
  readonly next: string;
  readonly nextMeta: StateMeta;
  readonly turn: number;
  readonly check: StopCheck;
  /** Set when `check` stops the session. */
  readonly stop: StopChange | undefined;
}

/**
 * An agent's answer: the answer, the pause it causes (an input state that asks makes it the
 * question to the user, unless the answer also stops the session) and a stop it triggers are one
 * step.
 */
export function answerStep(facts: AnswerFacts): Step {
  const { agent, response, routing, nextMeta, check } = facts;
  // A selector's choice, when it is recorded in the thread, leads the step's messages. The delta
  // the stop rule was given is not changed: what follows it goes into a copy.
  const given = facts.delta ?? [...(response.innerMessages ?? []), response.chatMessage];
  const follows = nextMeta.kind === 'input' || routing.followUp !== undefined;
  const append =
    facts.selection !== undefined ? [facts.selection, ...given] : follows ? [...given] : given;
  const waits = nextMeta.kind === 'input';
  let pendingRequest: PendingRequest | null = null;
  if (nextMeta.kind === 'input' && nextMeta.asks === true && check.stop === null) {
    pendingRequest = {
      id: newId(),
      agent,
      prompt: messageToText(response.chatMessage),
      kind: 'input',
    };
    append.push(
      userInputRequestedEvent({
        source: agent,
        requestId: pendingRequest.id,
        content: pendingRequest.prompt,
      }),
    );
  }
  const followUp = routing.followUp ?? [];
  append.push(...followUp);
  const speakers = [agent];
  const change: Step = {
    kind: 'answer',
    agents: speakers,
    append,
    machineState: facts.next,
    pendingRequest,
    turn: waits ? 0 : facts.turn + 1,
    termination: check.state,
    responders: speakers,
    unseen: followUp.length,
    ...(routing.progress === undefined ? {} : { progress: routing.progress }),
    status: waits ? 'awaiting_input' : 'idle',
  };
  return facts.stop === undefined ? change : { ...change, ...facts.stop };
}

/** The answers of a group step, recorded together in the order the orchestration named. */
export function groupAnswerStep(
  state: SessionState,
  responders: readonly string[],
  append: readonly AgentMessage[],
  routing: ResponseRouting,
  next: { readonly state: string; readonly waits: boolean },
  check: StopCheck,
  stop: StopChange | undefined,
): Step {
  return {
    kind: 'answer',
    agents: responders,
    append,
    machineState: next.state,
    turn: next.waits ? 0 : state.turn + responders.length,
    termination: check.state,
    responders,
    ...(routing.progress === undefined ? {} : { progress: routing.progress }),
    status: next.waits ? 'awaiting_input' : 'idle',
    ...stop,
  };
}

/** A selector found nobody to speak: the session waits in `waiting` with `agent`'s request. */
export function askUserStep(waiting: string, agent: string, prompt: string): Step {
  const pendingRequest: PendingRequest = { id: newId(), agent, prompt, kind: 'input' };
  return {
    kind: 'ask',
    agent,
    append: [
      userInputRequestedEvent({ source: agent, requestId: pendingRequest.id, content: prompt }),
    ],
    machineState: waiting,
    pendingRequest,
    turn: 0,
    status: 'awaiting_input',
  };
}

/** What the runner learned about a task given to the session. */
export interface InputFacts {
  readonly task: readonly AgentMessage[];
  /** The machine state the input leads to. */
  readonly machineState: string;
  /** The orchestration's progress once the task is accepted, if it changes. */
  readonly progress: unknown;
  /** The guardrail event when an input guardrail tripped. */
  readonly tripped: AgentMessage | undefined;
  readonly check: StopCheck;
  /** Set when a guardrail or the stop rule stops the session. */
  readonly stop: StopChange | undefined;
}

/** A new task: recorded (with a tripped guardrail's event), routed, and stopping if it must. */
export function inputStep(facts: InputFacts): Step {
  return {
    kind: 'input',
    append: facts.tripped === undefined ? facts.task : [...facts.task, facts.tripped],
    machineState: facts.machineState,
    resumeState: null,
    pendingRequest: null,
    status: 'idle',
    termination: facts.check.state,
    ...(facts.progress === undefined ? {} : { progress: facts.progress }),
    ...facts.stop,
  };
}

/**
 * Input to a turn paused for approvals: recorded, with the calls still undecided (the turn stays
 * paused while there are any, unless the input stops the session).
 */
export function decisionsStep(
  pending: PendingRequest,
  undecided: PendingRequest['calls'],
  facts: Omit<InputFacts, 'machineState' | 'progress'>,
): Step {
  const waits = (undecided ?? []).length > 0 && facts.stop === undefined;
  return {
    kind: 'input',
    append: facts.tripped === undefined ? facts.task : [...facts.task, facts.tripped],
    pendingRequest: waits ? { ...pending, calls: undecided } : null,
    status: waits ? 'awaiting_input' : 'idle',
    termination: facts.check.state,
    ...facts.stop,
  };
}
