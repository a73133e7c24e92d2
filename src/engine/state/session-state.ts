import { z } from 'zod';

import type { AgentMessage, FunctionCall } from '../../messages/message.js';
import { AgentMessageSchema, FunctionCallSchema } from '../../messages/message-schema.js';
import { carriedThread, type Thread } from '../../messages/thread.js';
import { giveThread, threadOf } from './state-thread.js';
import type { Step, StepBody, StepFields } from './step.js';
import { applyStateOps, EMPTY_STATE, type StateValue } from '../../agents/conversation-state.js';
import { StateUpdateSchema, updatesOf } from './state-updates.js';

/**
 * The question a paused session waits on. `kind: "input"`: an answer awaits the user's reply (its
 * `id` is the `UserInputRequestedEvent.requestId`); `kind: "approval"`: `calls` await a decision;
 * `kind: "in_doubt"`: `calls` may or may not have completed, and await a decision;
 * `kind: "budget"`: `agent`'s next model call would pass the budget (`prompt` says which), and
 * awaits a decision granting more (`approve(id, { amountUsd })`) or refusing it.
 */
export interface PendingRequest {
  readonly id: string;
  readonly agent: string;
  readonly prompt: string;
  readonly kind: 'input' | 'approval' | 'in_doubt' | 'budget';
  /** With `kind: "approval"` or `"in_doubt"`: the calls still awaiting a decision. */
  readonly calls?: readonly FunctionCall[] | undefined;
  /**
   * The roles of the principals that may answer it, when someone else than the session's owner
   * must (a tool's `approvers`): anyone else is refused.
   */
  readonly waitingFor?: readonly string[] | undefined;
}

// A public type written out for its readers; the compiler checks that the schema produces it.
const PendingRequestSchema: z.ZodType<PendingRequest, unknown> = z
  .object({
    id: z.string().min(1),
    agent: z.string().min(1),
    prompt: z.string(),
    // Sessions stored before approvals existed have no kind: theirs was an input request.
    kind: z.enum(['input', 'approval', 'in_doubt', 'budget']).default('input'),
    calls: z.array(FunctionCallSchema).readonly().optional(),
    waitingFor: z.array(z.string()).readonly().optional(),
  })
  .readonly();

const SessionStateObject = z.object({
  version: z.literal(1),
  /** The whole thread, every message once, streaming chunks excluded. */
  thread: z.array(AgentMessageSchema).readonly(),
  /** The state of the compiled machine: the next speaker, `awaitingInput` or `stopped`. */
  machineState: z.string().min(1),
  /** Where `run()` without a task continues after a stop: the state the stop interrupted. */
  resumeState: z.string().min(1).nullable(),
  /** What a session is doing between runs (`running` is known only to the process running it). */
  status: z.enum(['idle', 'awaiting_input', 'terminated', 'cancelled']),
  pendingRequest: PendingRequestSchema.nullable(),
  /** Agent turns in the current run; reset when a run stops or pauses, kept when cancelled. */
  turn: z.number().int().nonnegative(),
  /** The termination condition's `saveState()` for this session. */
  termination: z.unknown(),
  /** Per agent: the thread length when it last responded (its `newMessages` start there). */
  bookmarks: z.record(z.string(), z.number().int().nonnegative()).readonly(),
  /** The agent that spoke last, for `last_agent` routing. */
  lastSpeaker: z.string().nullable(),
  /**
   * The orchestration's own record of where a run stands beyond the machine state (e.g. which
   * participants are due next), as plain JSON; `null` when it keeps none.
   */
  progress: z.unknown().optional(),
  /**
   * The conversation state, a JSON object; absent while it is `{}` and no `state`
   * option gave it a value, so sessions that do not use it are stored as before.
   */
  data: z.record(z.string(), z.unknown()).optional(),
  /**
   * Each change of `data` so far, in order, for `record()`: a tool call's (`call`,
   * its id) or the application's (`at`, the thread's length then). Absent until the first change.
   */
  stateUpdates: z.array(StateUpdateSchema).readonly().optional(),
  /** Steps committed so far; the optimistic-concurrency token of checkpoint stores. */
  step: z.number().int().nonnegative(),
});

/**
 * Everything a conversation is: one immutable value. A step (`Step`, step.ts) produces the next
 * value and says what it changed; agents and workflow objects hold no conversation state.
 */
export type SessionState = Readonly<z.output<typeof SessionStateObject>>;

/** What a session is doing between runs. */
export type SessionStatus = SessionState['status'];

/** Validates a session state as a checkpoint holds it. */
export const SessionStateSchema = SessionStateObject.readonly();

/** Validates a state from `saveState()`: the session state without its step number. */
export const SavedStateSchema = SessionStateObject.omit({ step: true }).readonly();

/** A fresh session: an empty thread in the machine's initial state. */
export function initialSessionState(
  machineState: string,
  termination: unknown,
  data?: StateValue,
): SessionState {
  const fresh: SessionState = {
    version: 1,
    thread: [],
    machineState,
    resumeState: null,
    status: 'idle',
    pendingRequest: null,
    turn: 0,
    termination,
    bookmarks: {},
    lastSpeaker: null,
    progress: null,
    step: 0,
  };
  return data === undefined ? fresh : { ...fresh, data, step: 0 };
}

/** One committed step: the next state, the step as made, and what it changed. */
export interface CommittedStep {
  readonly state: SessionState;
  readonly step: Step;
  /**
   * What the step changed, as the reducer found it: the appended messages, the fields whose value
   * changed, the bookmarks that moved and the last speaker if it changed. It is what a store keeps,
   * and the body that makes `state` again when the reducer applies it to the previous state.
   */
  readonly change: StepBody;
}

/**
 * The fields a step may replace whole, in the order a stored step lists them (then the last
 * speaker); the thread only grows and bookmarks change per agent.
 */
export const REPLACEABLE = [
  'machineState',
  'resumeState',
  'status',
  'pendingRequest',
  'turn',
  'termination',
  'progress',
] as const satisfies readonly (keyof StepFields & keyof SessionState)[];

/** Freezes a new message and everything in it (messages are shared, never edited). */
function freezeDeep<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const inner of Object.values(value)) freezeDeep(inner);
  return value;
}

/** No messages: one frozen empty array for every step, delta or check that has none. */
export const NO_MESSAGES: readonly AgentMessage[] = Object.freeze([]);

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * `state` without its thread (see `giveThread`), to be changed before it is frozen. Written out
 * field by field, in the schema's order: V8 copies a frozen object with a spread several times
 * slower.
 */
function copyState(state: SessionState): Mutable<Omit<SessionState, 'thread'>> {
  const copy = copyFields(state);
  if (state.data !== undefined) copy.data = state.data;
  if (state.stateUpdates !== undefined) copy.stateUpdates = state.stateUpdates;
  return copy;
}

function copyFields(state: SessionState): Mutable<Omit<SessionState, 'thread'>> {
  // A state stored before `progress` existed has none, and keeps none until a step sets it (rare).
  if (!Object.hasOwn(state, 'progress')) {
    const { version, machineState, resumeState, status, pendingRequest, turn } = state;
    const { termination, bookmarks, lastSpeaker, step } = state;
    return {
      version,
      machineState,
      resumeState,
      status,
      pendingRequest,
      turn,
      termination,
      bookmarks,
      lastSpeaker,
      step,
    };
  }
  return {
    version: state.version,
    machineState: state.machineState,
    resumeState: state.resumeState,
    status: state.status,
    pendingRequest: state.pendingRequest,
    turn: state.turn,
    termination: state.termination,
    bookmarks: state.bookmarks,
    lastSpeaker: state.lastSpeaker,
    progress: state.progress,
    step: state.step,
  };
}

/** `state` with `thread` as its thread: what an agent is shown before a step is committed. */
export function withThread(state: SessionState, thread: Thread): SessionState {
  const next = copyState(state);
  giveThread(next, thread);
  return Object.freeze(next);
}

/**
 * `state` as a state a step made: one that carries its thread (a copy of the array, once), so that
 * the steps after it append without copying it again. A state that carries one is returned as is.
 */
export function owningThread(state: SessionState): SessionState {
  return carriedThread(state) === undefined ? withThread(state, threadOf(state)) : state;
}

/** Moves `responder`'s bookmark to `seen` (a new bookmarks object, when it moves). */
function bookmark(
  next: Mutable<Omit<SessionState, 'thread'>>,
  responder: string,
  seen: number,
): void {
  const bookmarks = next.bookmarks;
  if (Object.hasOwn(bookmarks, responder) && bookmarks[responder] === seen) return;
  next.bookmarks = Object.freeze({ ...bookmarks, [responder]: seen });
}

/** The bookmarks that moved from `before` to `after`, in the order of `after`. */
function moved(
  before: SessionState['bookmarks'],
  after: SessionState['bookmarks'],
): [agent: string, at: number][] {
  const moves: [string, number][] = [];
  for (const [agent, at] of Object.entries(after)) {
    if (!Object.hasOwn(before, agent) || before[agent] !== at) moves.push([agent, at]);
  }
  return moves;
}

/**
 * The one reducer: applies a step — one a run makes, or one a stored log replays — to `state`,
 * and says what it changed (`CommittedStep.change`, what a store keeps). Only what the step
 * changes is touched, so that record grows with the step's new messages, never with the length of
 * the thread: the state is a flat record whose changes are known field by field, and the thread
 * is a value that appends without copying what it shares (`Thread.append`).
 */
export function applyStep(state: SessionState, step: Step): CommittedStep {
  const append = step.append ?? NO_MESSAGES;
  for (let i = 0; i < append.length; i++) freezeDeep(append[i]);
  const next = copyState(state);
  const thread = threadOf(state).append(append);
  giveThread(next, thread);
  const length = thread.length;
  const change: { -readonly [K in keyof StepBody]: StepBody[K] } =
    append.length === 0 ? {} : { append };
  const written: Record<string, unknown> = next;
  const changed: Record<string, unknown> = change;
  for (const key of REPLACEABLE) {
    const value = step[key];
    if (value !== undefined && !Object.is(state[key], value)) {
      written[key] = changed[key] = freezeDeep(value);
    }
  }
  const responders = step.responders;
  if (responders !== undefined && responders.length > 0) {
    const seen = length - (step.unseen ?? 0);
    for (const responder of responders) bookmark(next, responder, seen);
    next.lastSpeaker = responders.at(-1) ?? null;
  }
  if (step.bookmarks !== undefined) {
    for (const [agent, at] of step.bookmarks) bookmark(next, agent, at);
  }
  if (step.lastSpeaker !== undefined) next.lastSpeaker = step.lastSpeaker;
  if (step.stopReason !== undefined) change.stopReason = step.stopReason;
  const patch = step.statePatch;
  if (patch !== undefined && patch.length > 0) {
    next.data = applyStateOps(state.data ?? EMPTY_STATE, patch);
    change.statePatch = patch;
    const calls = step.stateCalls;
    if (calls !== undefined) change.stateCalls = calls;
    next.stateUpdates = Object.freeze([
      ...(state.stateUpdates ?? []),
      ...updatesOf(patch, calls, length),
    ]);
  }
  if (next.bookmarks !== state.bookmarks) change.bookmarks = moved(state.bookmarks, next.bookmarks);
  if (next.lastSpeaker !== state.lastSpeaker) change.lastSpeaker = next.lastSpeaker;
  next.step = state.step + 1;
  return { state: Object.freeze(next), step, change };
}
