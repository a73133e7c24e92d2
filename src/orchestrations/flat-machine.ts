import { type AnyStateMachine, setup } from 'xstate';

import type { MachineEvent } from '../engine/orchestration.js';

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

/** A guarded transition of a compiled machine: where an event leads, and on which condition. */
export interface FlatTransition {
  readonly target: string;
  readonly guard?: { readonly type: GuardName; readonly params: Record<string, string> };
}

type GuardName =
  'handoffTo' | 'keepGoing' | 'reroute' | 'leavesTeam' | 'replyTo' | 'selected' | 'resumeTo';

/** The `stopped` state: input routes like a reply; `resume` returns to any of `resumable`. */
export function stoppedState(
  userRoutes: readonly FlatTransition[],
  resumable: readonly string[],
): object {
  return {
    meta: { kind: 'stopped' },
    on: {
      user_replied: userRoutes,
      resume: resumable.map((to) => ({ target: to, guard: { type: 'resumeTo', params: { to } } })),
    },
  };
}

/**
 * Builds the flat statechart an orchestration compiles to: the given states, starting in
 * `awaitingInput`, `stop` leading to `stopped` from anywhere. Every guard reads only the event
 * (the engine's small fixed set), so every transition is a pure function of (state, event).
 */
export function createFlatMachine(id: string, states: Record<string, object>): AnyStateMachine {
  return setup({
    types: { events: {} as MachineEvent },
    guards: {
      handoffTo: ({ event }, params: Record<string, string>) =>
        event.type === 'agent_responded' && event.handoffTo === params.target,
      keepGoing: ({ event }) => event.type === 'agent_responded' && event.keepGoing === true,
      reroute: ({ event }) => event.type === 'agent_responded' && event.reroute === true,
      leavesTeam: ({ event }) => event.type === 'agent_responded' && event.leavesTeam === true,
      replyTo: ({ event }, params: Record<string, string>) =>
        event.type === 'user_replied' && event.replyTo === params.agent,
      selected: ({ event }, params: Record<string, string>) =>
        event.type === 'speaker_selected' && event.agent === params.agent,
      resumeTo: ({ event }, params: Record<string, string>) =>
        event.type === 'resume' && event.to === params.to,
    },
  }).createMachine({
    id,
    initial: 'awaitingInput',
    on: { stop: '.stopped' },
    states,
  } as never) as unknown as AnyStateMachine;
}
