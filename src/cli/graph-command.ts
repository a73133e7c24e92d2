import { type WorkflowGraph, workflowGraph } from '../devtools/workflow-graph.js';
import { type CommandSpec, parseCommandArgs, UsageError } from './cli-args.js';
import { loadWorkflowModule } from './workflow-module.js';

export const GRAPH_SPEC: CommandSpec = {
  command: 'graph',
  options: [],
  positionals: [{ name: 'workflow module', example: 'baton graph desk.ts' }],
};

export const GRAPH_HELP = `Usage: baton graph <module>

Prints the workflow's routing graph as Mermaid flowchart text: toMermaid() for a handoff workflow,
and for a team a drawing of its compiled statechart (participants, who speaks after whom, handoffs,
the user). Paste it into any Mermaid renderer.
`;

/** Mermaid ids must be plain words; agent names may hold `-`. */
const id = (name: string) => `n_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;

/**
 * Mermaid ids named after what a node shows (`n_user`, `n_selector`, `n_<agent>`), never after
 * the machine's internal state keys (`awaitingInput`, `selecting`).
 */
function mermaidIds(graph: WorkflowGraph): Map<string, string> {
  const ids = new Map<string, string>();
  const taken = new Set<string>();
  for (const node of graph.nodes) {
    const shown =
      node.kind === 'input'
        ? 'user'
        : node.kind === 'select'
          ? 'selector'
          : node.kind === 'stopped'
            ? 'stopped'
            : (node.agent ?? node.label);
    let candidate = id(shown);
    for (let n = 2; taken.has(candidate); n++) candidate = `${id(shown)}_${n}`;
    taken.add(candidate);
    ids.set(node.id, candidate);
  }
  return ids;
}

/** A team's graph (read from its machine) as a Mermaid flowchart. */
export function graphMermaid(graph: WorkflowGraph): string {
  const lines = ['flowchart LR'];
  const ids = mermaidIds(graph);
  const of = (key: string) => ids.get(key) ?? id(key);
  // The Mermaid text shows routing: the `stopped` state (where any run can end) is left out.
  const stopped = new Set(graph.nodes.filter((n) => n.kind === 'stopped').map((n) => n.id));
  const edges = graph.edges.filter((e) => !stopped.has(e.from) && !stopped.has(e.to));
  const linked = new Set(edges.flatMap((e) => [e.from, e.to]));
  for (const node of graph.nodes) {
    if (!linked.has(node.id)) continue;
    if (node.kind === 'input') lines.push(`  ${of(node.id)}((user))`);
    else if (node.kind === 'select') lines.push(`  ${of(node.id)}{"selector"}`);
    else lines.push(`  ${of(node.id)}["${node.label}"]`);
  }
  for (const e of edges) {
    const dashed = e.kind === 'asks' || e.kind === 'leaves' || e.kind === 'continues';
    lines.push(
      dashed
        ? `  ${of(e.from)} -. ${e.label} .-> ${of(e.to)}`
        : `  ${of(e.from)} -->|${e.label}| ${of(e.to)}`,
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
  const path = args.positionals['workflow module'] ?? '';
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
