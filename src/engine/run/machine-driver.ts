import type { StateValue } from '../../agents/conversation-state.js';
import { type AnyStateMachine, transition } from 'xstate';

import type { MachineEvent, StateMeta } from '../orchestration.js';

/**
 * Drives a compiled machine by state value. The machines Baton compiles have no context and no
 * guards, so `(state, event type) → next state` is pure and cached: a hop costs a map lookup after
 * the first time, whatever XState's own transition costs.
 */
export class MachineDriver {
  readonly machine: AnyStateMachine;
  readonly initialState: string;
  readonly #meta = new Map<string, StateMeta>();
  readonly #cache = new Map<string, Map<string, string>>();
  /** Per state: the events whose transition has a guard, which are never cached. */
  readonly #guarded = new Map<string, Set<string>>();

  constructor(machine: AnyStateMachine) {
    this.machine = machine;
    for (const [key, node] of Object.entries(machine.root.states)) {
      const meta = node.meta as StateMeta | undefined;
      if (meta === undefined)
        throw new Error(`Machine "${machine.id}": state "${key}" has no meta.`);
      this.#meta.set(key, meta);
      for (const [type, transitions] of node.transitions) {
        if (!transitions.some((t) => t.guard !== undefined)) continue;
        let events = this.#guarded.get(key);
        if (events === undefined) this.#guarded.set(key, (events = new Set()));
        events.add(type);
      }
    }
    const initial = machine.root.initial?.target[0]?.key;
    if (initial === undefined) throw new Error(`Machine "${machine.id}" has no initial state.`);
    this.initialState = initial;
  }

  /** What `state` means to the engine. */
  meta(state: string): StateMeta {
    const meta = this.#meta.get(state);
    if (meta === undefined) {
      throw new Error(
        `Machine "${this.machine.id}" has no state "${state}". The session was written by a ` +
          'different workflow; resume it with the workflow that wrote it.',
      );
    }
    return meta;
  }

  /** The first state where `agent` speaks alone, if any. */
  agentState(agent: string): string | undefined {
    for (const [state, meta] of this.#meta) {
      if (meta.kind === 'agent' && meta.agent === agent) return state;
    }
    return undefined;
  }

  /** True when the machine has a state named `state`. */
  has(state: string): boolean {
    return this.#meta.has(state);
  }

  /**
   * The state after `event` in `state`; a guard reads `data` (the conversation state) and
   * `context`.
   * @throws Error when `state` has no transition for `event`: the orchestration's routing and its
   *   compiled machine disagree, and going on in the same state would hide it.
   */
  next(state: string, event: MachineEvent, data?: StateValue, context?: object): string {
    // Two lookups rather than one joined key: a key made per call is a string to build and hash.
    let byEvent = this.#cache.get(state);
    const cached = byEvent?.get(event.type);
    if (cached !== undefined) return cached;
    const guarded = this.#guarded.get(state)?.has(event.type) === true;
    // A guarded transition reads the conversation state (and `context`: the handoff that gave the
    // speaker the floor), which the event carries to its guard.
    const given = guarded
      ? { type: event.type, state: data ?? {}, context: context ?? {} }
      : { type: event.type };
    const snapshot = this.machine.resolveState({ value: state, context: {} });
    if (!snapshot.can(given)) {
      if (guarded) {
        throw new Error(
          `Machine "${this.machine.id}": the guard of event "${event.type}" in state "${state}" ` +
            'does not hold on the conversation state; the handoff is not allowed now.',
        );
      }
      const handled = this.machine.root.states[state]?.ownEvents ?? [];
      throw new Error(
        `Machine "${this.machine.id}" has no transition for event "${event.type}" in state ` +
          `"${state}" (it handles ${handled.map((e) => `"${e}"`).join(', ') || 'no event'}). ` +
          'The routing and the compiled machine disagree; this is a bug in the orchestration.',
      );
    }
    const [after] = transition(this.machine, snapshot, given);
    const value = after.value;
    if (typeof value !== 'string') {
      throw new Error(`Machine "${this.machine.id}" must be flat; got ${JSON.stringify(value)}.`);
    }
    if (guarded) return value;
    if (byEvent === undefined) {
      byEvent = new Map();
      this.#cache.set(state, byEvent);
    }
    byEvent.set(event.type, value);
    return value;
  }
}
