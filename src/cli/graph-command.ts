import { type WorkflowGraph, workflowGraph } from '../devtools/workflow-graph.js';
import { type CommandSpec, parseCommandArgs, UsageError } from './cli-args.js';
import { loadWorkflowModule } from './workflow-module.js';

export const GRAPH_SPEC: CommandSpec = {
  command: 'graph',
  options: [],
  positionals: [{ name: 'workflow module', example: 'baton graph samples/support-desk.ts' }],
};

export const GRAPH_HELP = `Usage: baton graph <module>

Prints the workflow's routing graph as Mermaid flowchart text: toMermaid() for a handoff workflow,
and for a team a drawing of its compiled statechart (participants, who speaks after whom, handoffs,
the user). Paste it into any Mermaid renderer.
`;

/** Mermaid ids must be plain words; agent names may hold `-`. */
const id = (name: string) => `n_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;

/** A team's graph (read from its machine) as a Mermaid flowchart. */
export function graphMermaid(graph: WorkflowGraph): string {
  const lines = ['flowchart LR'];
  const linked = new Set(graph.edges.flatMap((e) => [e.from, e.to]));
  for (const node of graph.nodes) {
    if (!linked.has(node.id)) continue;
    if (node.kind === 'input') lines.push(`  ${id(node.id)}((user))`);
    else if (node.kind === 'select') lines.push(`  ${id(node.id)}{"${node.label}"}`);
    else lines.push(`  ${id(node.id)}["${node.label}"]`);
  }
  for (const e of graph.edges) {
    const dashed = e.kind === 'asks' || e.kind === 'leaves' || e.kind === 'continues';
    lines.push(
      dashed
        ? `  ${id(e.from)} -. ${e.label} .-> ${id(e.to)}`
        : `  ${id(e.from)} -->|${e.label}| ${id(e.to)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `baton graph <module>`: prints the Mermaid graph. */
export async function graphCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommandArgs(GRAPH_SPEC, argv);
  if (args.help) {
    process.stdout.write(GRAPH_HELP);
    return 0;
  }
  const path = args.positionals['workflow module'] as string;
  const { workflow } = await loadWorkflowModule('graph', path);
  if (typeof workflow.toMermaid === 'function') {
    process.stdout.write(workflow.toMermaid());
    return 0;
  }
  if (workflow.machine === undefined) {
    throw new UsageError(`baton graph: the workflow of ${path} has no compiled machine to draw.`);
  }
  process.stdout.write(graphMermaid(workflowGraph(workflow.machine)));
  return 0;
}
