import type { Checkpointing } from '../../engine/log/checkpointing.js';
import type { Orchestration } from '../../engine/orchestration.js';
import { WorkflowRunner } from '../../engine/session/workflow-runner.js';
import { graphMermaid } from './graph-mermaid.js';
import type { GraphTopology } from './graph-topology.js';

/**
 * A built graph workflow (`GraphBuilder.build()`): a `Runnable` whose sessions run the compiled
 * statechart, the nodes due in each step answering concurrently.
 */
export class GraphWorkflow extends WorkflowRunner {
  readonly name: string;
  /** Node names in `addNode` order. */
  readonly nodes: readonly string[];
  /** The nodes a run starts at. */
  readonly entryPoints: readonly string[];
  readonly #graph: GraphTopology;

  /** @internal `GraphBuilder.build()` makes graph workflows; this constructor is not public API. */
  constructor(orchestration: Orchestration, graph: GraphTopology, checkpointing?: Checkpointing) {
    super(orchestration, checkpointing);
    this.#graph = graph;
    this.name = graph.name;
    this.nodes = graph.nodes;
    this.entryPoints = graph.entryPoints;
  }

  /** The graph as Mermaid flowchart text: nodes, entry points and edges with their conditions. */
  toMermaid(): string {
    return graphMermaid(this.#graph);
  }
}
