import type { AnyStateMachine } from 'xstate';

import type { GroupDrawing } from '../../engine/orchestration.js';
import { createFlatMachine, edge, type FlatState, stoppedState } from '../flat-machine.js';
import type { GraphTopology } from './graph-topology.js';

/** The machine state where the nodes due run together, one step at a time. */
export const DISPATCHING = 'dispatching';

/** The events of a graph's machine: answers were recorded (`next`), a task arrived (`message`). */
export type GraphEvent = { readonly type: 'next' } | { readonly type: 'message' };

/**
 * Compiles a graph into a flat statechart: `dispatching` (a group state: the nodes due answer
 * together; a step whose nodes pause for approvals waits there too), a state per node (where a
 * session stored while one node alone finished a turn paused for approvals goes on),
 * `awaitingInput` (a fresh session) and `stopped`. Which nodes are due is the session's progress.
 * The node-to-node edges are no transitions of the machine (every answer returns to
 * `dispatching`), so `dispatching` carries them as a drawing for the devtools page.
 */
export function compileGraphMachine(graph: GraphTopology): AnyStateMachine {
  const states: Record<string, FlatState<GraphEvent>> = {};
  for (const node of graph.nodes) {
    states[node] = {
      meta: { kind: 'agent', agent: node },
      on: { next: edge(DISPATCHING, 'next') },
    };
  }
  states[DISPATCHING] = {
    meta: { kind: 'group', drawing: graphDrawing(graph) },
    on: { next: edge(DISPATCHING, 'continues') },
  };
  const input = { message: edge(DISPATCHING, 'message') };
  states.awaitingInput = { meta: { kind: 'input' }, on: input };
  states.stopped = stoppedState(input, [DISPATCHING, ...graph.nodes, 'awaitingInput']);
  return createFlatMachine(graph.name, states);
}

/** The graph as plain data for a drawing: a predicate shows by its function's name. */
export function graphDrawing(graph: GraphTopology): GroupDrawing {
  return {
    nodes: graph.nodes.map((name) => ({ name, activation: graph.activation.get(name) ?? 'all' })),
    edges: graph.edges.map(({ source, target, when }) => ({
      source,
      target,
      ...(when === undefined
        ? {}
        : { when: typeof when === 'string' ? { text: when } : { predicate: when.name } }),
    })),
    entryPoints: graph.entryPoints,
  };
}
