import type { GuardrailSet } from '../../agents/guardrail.js';
import type { Orchestration, ResponseRouting } from '../../engine/orchestration.js';
import type { StopRule } from '../../engine/state/stop-rule.js';
import { compileGraphMachine, type GraphEvent } from './graph-machine.js';
import { advance, graphProgressSchema, readProgress, startProgress } from './graph-progress.js';
import type { GraphTopology } from './graph-topology.js';

/** The stop reason of a graph run when no node is due. */
export const DIGRAPH_COMPLETE = 'Digraph execution is complete';

/** Compiles a checked graph into what the engine runs. */
export function compileGraph(
  graph: GraphTopology,
  options: {
    readonly maxTurns: number;
    readonly stopRule: StopRule | undefined;
    readonly guardrails: Required<GuardrailSet>;
  },
): Orchestration {
  const answered: GraphEvent = { type: 'next' };
  const progressOf = (value: unknown) => readProgress(value) ?? startProgress(graph);
  const route = (
    answers: Parameters<NonNullable<Orchestration['routeGroup']>>[0],
    progress: unknown,
    paused: readonly string[] = [],
  ): ResponseRouting => ({
    event: answered,
    progress: advance(graph, progressOf(progress), answers, paused),
  });
  return {
    name: graph.name,
    machine: compileGraphMachine(graph),
    participants: graph.agents,
    maxTurns: options.maxTurns,
    stopRule: options.stopRule,
    guardrails: options.guardrails,
    descriptor: {
      kind: 'graph',
      nodes: graph.nodes.map((name) => ({ name, activation: graph.activation.get(name) })),
      edges: graph.edges.map((e) => ({
        source: e.source,
        target: e.target,
        ...(e.when === undefined
          ? {}
          : { when: typeof e.when === 'string' ? e.when : { predicate: e.when.name } }),
      })),
      entryPoints: graph.entryPoints,
    },
    progressSchema: graphProgressSchema(graph),
    turnOptions: () => ({}),
    selectSpeakers: (state) => {
      const { ready, paused } = progressOf(state.progress);
      // Nodes paused for approvals finish their turns before anyone else runs.
      if (paused !== undefined && paused.length > 0) return { agents: paused };
      return ready.length === 0 ? { complete: DIGRAPH_COMPLETE } : { agents: ready };
    },
    routeGroup: (answers, state, paused) => route(answers, state.progress, paused),
    routeResponse: (agent, response, state) => route([{ agent, response }], state.progress),
    routeUserInput: () => ({ type: 'message' }),
    // A task after a complete run starts again at the entry points; otherwise the due nodes go on.
    progressOnInput: (state) => {
      const progress = readProgress(state.progress);
      return progress === null || progress.ready.length === 0 ? startProgress(graph) : undefined;
    },
  };
}
