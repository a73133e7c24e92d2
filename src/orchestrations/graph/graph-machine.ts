import type { AnyStateMachine } from 'xstate';

import { createFlatMachine, stoppedState } from '../flat-machine.js';
import type { GraphTopology } from './graph-topology.js';

/** The machine state where the nodes due run together, one step at a time. */
export const DISPATCHING = 'dispatching';

/**
 * Compiles a graph into a flat statechart: `dispatching` (a group state: the nodes due answer
 * together), a state per node (where a node alone finishes a turn paused for approvals),
 * `awaitingInput` (a fresh session) and `stopped`. Which nodes are due is the session's progress.
 */
export function compileGraphMachine(graph: GraphTopology): AnyStateMachine {
  const states: Record<string, object> = {};
  for (const node of graph.nodes) {
    states[node] = { meta: { kind: 'agent', agent: node }, on: { agent_responded: DISPATCHING } };
  }
  states[DISPATCHING] = { meta: { kind: 'group' }, on: { agent_responded: DISPATCHING } };
  states.awaitingInput = { meta: { kind: 'input' }, on: { user_replied: DISPATCHING } };
  states.stopped = stoppedState(
    [{ target: DISPATCHING }],
    [DISPATCHING, ...graph.nodes, 'awaitingInput'],
  );
  return createFlatMachine(graph.name, states);
}
