import { enablePatches, type Patch } from 'immer';
import { z } from 'zod';

import type { AgentMessage, FunctionCall } from '../../messages/message.js';
import { AgentMessageSchema, FunctionCallSchema } from '../../messages/message-schema.js';
import { carriedThread, type Thread } from '../../messages/thread.js';
import { giveThread, threadOf } from './state-thread.js';

// Loading a session replays step patches with immer's `applyPatches`.
enablePatches();

/**
 * The question a paused session waits on. `kind: "input"`: an answer awaits the user's reply (its
 * `id` is the `UserInputRequestedEvent.requestId`); `kind: "approval"`: `calls` await a decision.
 */
export interface PendingRequest {
  readonly id: string;
  readonly agent: string;
  readonly prompt: string;
  readonly kind: 'input' | 'approval';
  /** With `kind: "approval"`: the calls still awaiting a decision. */
  readonly calls?: readonly FunctionCall[] | undefined;
}

// A public type written out for its readers; the compiler checks that the schema produces it.
const PendingRequestSchema: z.ZodType<PendingRequest, unknown> = z
  .object({
    id: z.string().min(1),
    agent: z.string().min(1),
    prompt: z.string(),
    // Sessions stored before approvals existed have no kind: theirs was an input request.
    kind: z.enum(['input', 'approval']).default('input'),
    calls: z.array(FunctionCallSchema).readonly().optional(),
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
  /** Steps committed so far; the optimistic-concurrency token of checkpoint stores. */
  step: z.number().int().nonnegative(),
});

/**
 * Everything a conversation is: one immutable value. A step produces the next value and the
 * patches between the two; agents and workflow objects hold no conversation state.
 */
export type SessionState = Readonly<z.output<typeof SessionStateObject>>;

/** What a session is doing between runs. */
export type SessionStatus = SessionState['status'];

/** Validates a session state as a checkpoint holds it. */
export const SessionStateSchema = SessionStateObject.readonly();

/** Validates a state from `saveState()`: the session state without its step number. */
export const SavedStateSchema = SessionStateObject.omit({ step: true }).readonly();

/** A fresh session: an empty thread in the machine's initial state. */
export function initialSessionState(machineState: string, termination: unknown): SessionState {
  return {
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
}

/** What one step changes; every field is optional except the kind of step. */
export interface StepChange {
  /** `user_input`, `agent_response`, `stop`, ... : what the step log shows. */
  readonly event: string;
  readonly append?: readonly AgentMessage[];
  readonly machineState?: string;
  readonly resumeState?: string | null;
  readonly status?: SessionStatus;
  readonly pendingRequest?: PendingRequest | null;
  readonly turn?: number;
  readonly termination?: unknown;
  /** The agent that responded in this step: its bookmark moves to the end of what it saw. */
  readonly responder?: string;
  /** How many appended messages at the end the responder has not seen (e.g. a follow-up prompt). */
  readonly unseenByResponder?: number;
  /** Several agents responded in this step (a group step): each bookmark moves to its end. */
  readonly responders?: readonly string[];
  /** The orchestration's new progress (see `SessionState.progress`). */
  readonly progress?: unknown;
}

/** One committed step: the next state and the patches from the previous one. */
export interface CommittedStep {
  readonly state: SessionState;
  /** What changed, as immer patches; made when read (only a checkpoint store reads them). */
  readonly patches: readonly Patch[];
  readonly event: string;
}

/**
 * The fields a step may replace whole, in the order their patches are listed (then the bookmarks,
 * then `lastSpeaker`); the thread only grows and bookmarks change per agent.
 */
export const REPLACEABLE = [
  'machineState',
  'resumeState',
  'status',
  'pendingRequest',
  'turn',
  'termination',
  'progress',
] as const;

class Step implements CommittedStep {
  readonly state: SessionState;
  readonly event: string;
  readonly #previous: SessionState;
  /** The previous state's thread length. */
  readonly #from: number;
  /** The state's thread. */
  readonly #thread: Thread;
  #patches: Patch[] | undefined;

  constructor(
    previous: SessionState,
    from: number,
    state: SessionState,
    event: string,
    thread: Thread,
  ) {
    this.#previous = previous;
    this.#from = from;
    this.#thread = thread;
    this.state = state;
    this.event = event;
  }

  get patches(): readonly Patch[] {
    this.#patches ??= patchesBetween(this.#previous, this.#from, this.state, this.#thread);
    return this.#patches;
  }
}

/**
 * The patches from `previous` to `next`, the state a step made of it, whose thread is `thread`;
 * `previous` had `from` messages.
 */
function patchesBetween(
  previous: SessionState,
  from: number,
  next: SessionState,
  thread: Thread,
): Patch[] {
  const patches: Patch[] = [];
  for (let i = from; i < thread.length; i++) {
    patches.push({ op: 'add', path: ['thread', i], value: thread.at(i) });
  }
  for (const key of REPLACEABLE) {
    if (Object.is(previous[key], next[key])) continue;
    const op = Object.hasOwn(previous, key) ? 'replace' : 'add';
    patches.push({ op, path: [key], value: next[key] });
  }
  for (const agent in next.bookmarks) {
    if (!Object.hasOwn(next.bookmarks, agent)) continue;
    const seen = next.bookmarks[agent];
    if (Object.hasOwn(previous.bookmarks, agent) && previous.bookmarks[agent] === seen) continue;
    const op = Object.hasOwn(previous.bookmarks, agent) ? 'replace' : 'add';
    patches.push({ op, path: ['bookmarks', agent], value: seen });
  }
  if (!Object.is(previous.lastSpeaker, next.lastSpeaker)) {
    patches.push({ op: 'replace', path: ['lastSpeaker'], value: next.lastSpeaker });
  }
  patches.push({ op: 'replace', path: ['step'], value: next.step });
  return patches;
}

/** Freezes a new message and everything in it (messages are shared, never edited). */
function freezeDeep<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  // Walked without `Object.values`, which would allocate an array per object.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) freezeDeep(value[i]);
  } else {
    const record = value as Record<string, unknown>;
    for (const key in record) if (Object.hasOwn(record, key)) freezeDeep(record[key]);
  }
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

/**
 * Applies a step. Only what the step changes is touched, so the patches (what a checkpoint store
 * appends) grow with the step's new messages, never with the length of the thread.
 *
 * The patches are immer's (`applyPatches` replays them when a session is loaded), derived from the
 * two states when a store asks for them: the state is a flat record whose changes are known field
 * by field, and the thread only grows. Letting immer draft it cost a walk over the thread per step;
 * the thread is a value that appends without copying what it shares (`Thread.append`).
 */
export function applyStep(state: SessionState, change: StepChange): CommittedStep {
  const append = change.append ?? NO_MESSAGES;
  for (let i = 0; i < append.length; i++) freezeDeep(append[i]);
  const next = copyState(state);
  const previous = threadOf(state);
  const thread = previous.append(append);
  giveThread(next, thread);
  const length = thread.length;
  const from = previous.length;
  for (const key of REPLACEABLE) {
    const value = change[key];
    if (value !== undefined && !Object.is(state[key], value)) {
      (next as Record<string, unknown>)[key] = freezeDeep(value);
    }
  }
  const seen = length - (change.unseenByResponder ?? 0);
  let last = change.responder;
  if (change.responders === undefined) {
    if (last !== undefined) bookmark(next, last, seen);
  } else {
    for (const responder of change.responders) bookmark(next, responder, seen);
    last = change.responders[change.responders.length - 1];
  }
  if (last !== undefined && state.lastSpeaker !== last) next.lastSpeaker = last;
  next.step = state.step + 1;
  return new Step(state, from, Object.freeze(next), change.event, thread);
}
