import {
  type AnyStateMachine,
  type EventObject,
  type MachineContext,
  setup,
  type StateNodeConfig,
} from 'xstate';

import type { StateValue } from '../agents/conversation-state.js';
import type { HandoffGuardContext } from '../agents/chat-agent.js';
import { isRecord } from '../unknown-value.js';
import type { EngineEvent, MachineEvent, StateMeta } from '../engine/orchestration.js';

/**
 * The states compiled machines use themselves (`selecting` in selector teams, `classifying` in
 * lazily routed or resolver workflows): no participant may be named like one of them.
 */
export const RESERVED_STATES: ReadonlySet<string> = new Set([
  'awaitingInput',
  'stopped',
  'selecting',
  'classifying',
]);

/** What a transition means on a drawing of the workflow (`baton graph`, the devtools page). */
export type EdgeKind =
  | 'handoff'
  | 'next'
  | 'continues'
  | 'asks'
  | 'leaves'
  | 'message'
  | 'reply'
  | 'selects'
  | 'reroute';

/** The `meta` of a transition: its kind on a drawing. */
export interface EdgeMeta {
  readonly edge: EdgeKind;
  /** The name of the transition's guard, when it has one (a handoff's `when`). */
  readonly guard?: string;
}

/** Where an event leads, and what the edge means on a drawing (none: not drawn, e.g. resume). */
export interface Edge {
  readonly target: string;
  readonly meta?: EdgeMeta;
  /** A guard of the machine's `guards`: the transition is taken only while it holds. */
  readonly guard?: string;
}

/**
 * A guard of a compiled machine: reads the conversation state the event carries and
 * the handoff that gave the speaker the floor.
 */
export type StateGuard = (state: StateValue, ctx: HandoffGuardContext) => boolean;

/** True for what a guarded event carries besides the state: `{ handoff? }`. */
function isGuardContext(value: unknown): value is HandoffGuardContext {
  if (!isRecord(value)) return false;
  const { handoff } = value;
  return handoff === undefined || (isRecord(handoff) && typeof handoff.from === 'string');
}

/** `edge` taken only while the guard `name` holds (no guard: `edge` as it is). */
export function guardedEdge(edge: Edge, name: string | undefined): Edge {
  if (name === undefined) return edge;
  return { ...edge, guard: name, meta: { edge: edge.meta?.edge ?? 'handoff', guard: name } };
}

/** `target` as an edge of `kind`. */
export function edge(target: string, kind: EdgeKind): Edge {
  return { target, meta: { edge: kind } };
}

/**
 * The transitions of one state: each event type leads to one state. Compiled machines have no
 * guards: the orchestration names the outcome in the event's type (`handoff.billing`), so where a
 * response leads is decided once, by the orchestration, and the machine is a lookup table.
 */
export type Transitions<E extends EventObject> = {
  [K in E['type'] | EngineEvent['type']]?: Edge;
};

/** One state of a compiled machine: what it means to the engine, and where each event leads. */
export interface FlatState<E extends EventObject> {
  readonly meta: StateMeta;
  readonly on?: Transitions<E>;
}

/** The `resume.<state>` events of the `stopped` state: a resumed session returns where it was. */
export function resumeTransitions(resumable: readonly string[]): Transitions<EngineEvent> {
  const on: Record<string, Edge> = {};
  for (const to of resumable) on[`resume.${to}`] = { target: to };
  return on;
}

/** The `stopped` state: input routes as `inputRoutes`; `resume.<state>` returns to `resumable`. */
export function stoppedState<E extends EventObject>(
  inputRoutes: Transitions<E>,
  resumable: readonly string[],
): FlatState<E> {
  return { meta: { kind: 'stopped' }, on: { ...inputRoutes, ...resumeTransitions(resumable) } };
}

type StateConfig = StateNodeConfig<
  MachineContext,
  MachineEvent,
  never,
  never,
  { type: string; params: undefined },
  never,
  string,
  unknown,
  never,
  StateMeta | EdgeMeta
>;

/**
 * Builds the flat statechart an orchestration compiles to: the given states (their transitions
 * typed by the orchestration's own events `E`), starting in `awaitingInput`, `stop` leading to
 * `stopped` from anywhere. Without guards or context, every transition is a pure function of
 * (state, event type).
 */
export function createFlatMachine<E extends EventObject>(
  id: string,
  states: Readonly<Record<string, FlatState<E>>>,
  guards: Readonly<Record<string, StateGuard>> = {},
): AnyStateMachine {
  const config: Record<string, StateConfig> = {};
  for (const [key, state] of Object.entries(states)) {
    const on: Record<string, Edge> = {};
    for (const [type, to] of Object.entries(state.on ?? {})) if (to !== undefined) on[type] = to;
    config[key] = { meta: state.meta, on };
  }
  const implementations: Record<string, (args: { event: MachineEvent }) => boolean> = {};
  for (const [name, test] of Object.entries(guards)) {
    implementations[name] = ({ event }) => {
      const state = 'state' in event && isRecord(event.state) ? event.state : {};
      const context = 'context' in event && isGuardContext(event.context) ? event.context : {};
      return test(state, context) === true;
    };
  }
  return setup({ types: { events: {} as MachineEvent }, guards: implementations }).createMachine({
    id,
    initial: 'awaitingInput',
    on: { stop: '.stopped' },
    states: config,
  });
}
