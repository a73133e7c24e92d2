import type { GraphTopology } from './graph-topology.js';

/** Mermaid-safe node id. */
function id(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, '_');
}

/**
 * The graph as Mermaid flowchart text: entry points from `start`, each edge labelled with its
 * condition (a predicate shows as `when`), `any` nodes drawn round.
 */
export function graphMermaid(graph: GraphTopology): string {
  const lines = ['flowchart TD', '  start((start))'];
  for (const node of graph.nodes) {
    const label = JSON.stringify(node);
    lines.push(
      graph.activation.get(node) === 'any' ? `  ${id(node)}(${label})` : `  ${id(node)}[${label}]`,
    );
  }
  for (const entry of graph.entryPoints) lines.push(`  start --> ${id(entry)}`);
  for (const edge of graph.edges) {
    const when = edge.when;
    const label =
      when === undefined ? '' : `|${JSON.stringify(typeof when === 'string' ? when : 'when')}|`;
    lines.push(`  ${id(edge.source)} -->${label} ${id(edge.target)}`);
  }
  return lines.join('\n');
}
