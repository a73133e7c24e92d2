import { enablePatches, type Patch } from 'immer';
import { z } from 'zod';

import type { AgentMessage, FunctionCall } from '../../messages/message.js';
import { AgentMessageSchema, FunctionCallSchema } from '../../messages/message-schema.js';
import { extendThread, liveThread } from './thread-line.js';

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
  /** The previous state's thread length (its thread may have been copied by then). */
  readonly #from: number;
  #patches: Patch[] | undefined;

  constructor(previous: SessionState, from: number, state: SessionState, event: string) {
    this.#previous = previous;
    this.#from = from;
    this.state = state;
    this.event = event;
  }

  get patches(): readonly Patch[] {
    this.#patches ??= patchesBetween(this.#previous, this.#from, this.state);
    return this.#patches;
  }
}

/**
 * The patches from `previous` to `next`, the state a step made of it; `previous` had `from`
 * messages (its thread may be a copy made since, see `extendThread`).
 */
function patchesBetween(previous: SessionState, from: number, next: SessionState): Patch[] {
  const patches: Patch[] = [];
  const thread = liveThread(next);
  for (let i = from; i < thread.length; i++) {
    patches.push({ op: 'add', path: ['thread', i], value: thread[i] });
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
 * `state` without its thread (see `extendThread`), to be changed before it is frozen. Written out
 * field by field, in the schema's order: V8 copies a frozen object with a spread several times
 * slower.
 */
function copyState(state: SessionState): Mutable<SessionState> {
  // A state stored before `progress` existed has none, and keeps none until a step sets it (rare:
  // a spread is fine there).
  if (!Object.hasOwn(state, 'progress')) {
    const { thread: _thread, ...rest } = state;
    return rest as Mutable<SessionState>;
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
  } as Mutable<SessionState>;
}

/** `state` with `thread` as its thread: what an agent is shown before a step is committed. */
export function withThread(state: SessionState, thread: readonly AgentMessage[]): SessionState {
  const next = copyState(state);
  next.thread = thread;
  return Object.freeze(next);
}

/** Moves `responder`'s bookmark to `seen` (a new bookmarks object, when it moves). */
function bookmark(next: Mutable<SessionState>, responder: string, seen: number): void {
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
 * the thread is extended in place where no one else holds it (`extendThread`).
 */
export function applyStep(state: SessionState, change: StepChange): CommittedStep {
  const append = change.append ?? NO_MESSAGES;
  for (let i = 0; i < append.length; i++) freezeDeep(append[i]);
  const next = copyState(state);
  const length = extendThread(state, next, append);
  const from = length - append.length;
  for (let i = 0; i < REPLACEABLE.length; i++) {
    const key = REPLACEABLE[i] as (typeof REPLACEABLE)[number];
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
  return new Step(state, from, Object.freeze(next), change.event);
}
