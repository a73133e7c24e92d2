import type { ChatAgent } from '../../agents/chat-agent.js';
import { ConfigError } from '../../errors.js';
import type { ChatMessage } from '../../messages/message.js';
import { RESERVED_STATES } from '../flat-machine.js';
import { checkParticipantName } from '../participant-name.js';

/** When a node runs: `all` waits for every incoming edge, `any` runs on the first. */
export type Activation = 'all' | 'any';

/** An edge's condition: text the source's answer contains, or a predicate over the answer. */
export type EdgeCondition = string | ((message: ChatMessage) => boolean);

/** One edge of a graph, between node names. */
export interface GraphEdge {
  readonly source: string;
  readonly target: string;
  readonly when?: EdgeCondition;
}

/** A checked graph: nodes in `addNode` order, edges, entry points. */
export interface GraphTopology {
  readonly name: string;
  readonly nodes: readonly string[];
  readonly agents: ReadonlyMap<string, ChatAgent>;
  readonly activation: ReadonlyMap<string, Activation>;
  readonly edges: readonly GraphEdge[];
  readonly entryPoints: readonly string[];
  /**
   * Per node, the sources an `all` node waits for: those it cannot reach itself. An edge from a
   * source it can reach closes a loop and makes it ready on its own.
   */
  readonly waitsFor: ReadonlyMap<string, ReadonlySet<string>>;
}

/** What `build()` checks. */
export interface GraphSpec {
  readonly name: string;
  readonly nodes: readonly { readonly agent: ChatAgent; readonly activation: Activation }[];
  readonly edges: readonly GraphEdge[];
  readonly entryPoints: readonly string[] | undefined;
}

/** True when `edge`'s condition holds for its source's answer (no condition: always). */
export function edgeHolds(edge: GraphEdge, answer: ChatMessage, text: string): boolean {
  const when = edge.when;
  if (when === undefined) return true;
  if (typeof when === 'string') return text.includes(when);
  try {
    return when(answer) === true;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `The condition of edge "${edge.source}" -> "${edge.target}" failed: ${reason}`,
      { cause: error },
    );
  }
}

/** A node cycle made of unconditional edges only (it can never be left), or null. */
function unconditionalCycle(
  nodes: readonly string[],
  edges: readonly GraphEdge[],
): string[] | null {
  const next = new Map<string, string[]>(nodes.map((n) => [n, []]));
  for (const e of edges) if (e.when === undefined) next.get(e.source)?.push(e.target);
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 'open');
    path.push(node);
    for (const target of next.get(node) ?? []) {
      if (state.get(target) === 'open') return [...path.slice(path.indexOf(target)), target];
      if (state.get(target) === undefined) {
        const found = visit(target);
        if (found !== null) return found;
      }
    }
    path.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of nodes) {
    if (state.get(node) !== undefined) continue;
    const found = visit(node);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Checks a graph and resolves its entry points.
 * @throws ConfigError for a duplicate node, an edge to or from a node not added, no entry point,
 * or a cycle of unconditional edges.
 */
export function resolveGraph(spec: GraphSpec): GraphTopology {
  const owner = `GraphBuilder "${spec.name}"`;
  const agents = new Map<string, ChatAgent>();
  const activation = new Map<string, Activation>();
  for (const [i, { agent, activation: mode }] of spec.nodes.entries()) {
    checkParticipantName(owner, agent.name, `nodes[${i}].name`);
    if (agents.has(agent.name)) {
      throw new ConfigError(
        `${owner}: node "${agent.name}" was added twice. Add each agent once; give agents unique names.`,
        { path: 'nodes' },
      );
    }
    if (RESERVED_STATES.has(agent.name) || agent.name === 'dispatching') {
      throw new ConfigError(`${owner}: a node cannot be named "${agent.name}". Rename the agent.`, {
        path: 'nodes',
      });
    }
    agents.set(agent.name, agent);
    activation.set(agent.name, mode);
  }
  const nodes = [...agents.keys()];
  if (nodes.length === 0) {
    throw new ConfigError(`${owner} has no nodes. Add agents with addNode().`, { path: 'nodes' });
  }
  for (const edge of spec.edges) {
    for (const end of [edge.source, edge.target]) {
      if (!agents.has(end)) {
        throw new ConfigError(
          `${owner}: edge "${edge.source}" -> "${edge.target}" uses "${end}", which is not a node ` +
            `(nodes: ${nodes.join(', ')}). Add it with addNode() first.`,
          { path: 'edges' },
        );
      }
    }
  }
  let entryPoints = spec.entryPoints;
  if (entryPoints === undefined) {
    const targets = new Set(spec.edges.map((e) => e.target));
    entryPoints = nodes.filter((n) => !targets.has(n));
  } else {
    for (const entry of entryPoints) {
      if (!agents.has(entry)) {
        throw new ConfigError(
          `${owner}: entry point "${entry}" is not a node (nodes: ${nodes.join(', ')}). Add it with addNode().`,
          { path: 'entryPoints' },
        );
      }
    }
  }
  if (entryPoints.length === 0) {
    throw new ConfigError(
      `${owner} has no entry point: every node has an incoming edge. Call setEntryPoint() with the node that starts.`,
      { path: 'entryPoints' },
    );
  }
  const cycle = unconditionalCycle(nodes, spec.edges);
  if (cycle !== null) {
    throw new ConfigError(
      `${owner}: the cycle ${cycle.join(' -> ')} has no conditional edge, so it can never be left. ` +
        'Give one of its edges a `when` condition.',
      { path: 'edges' },
    );
  }
  const order = new Map(nodes.map((n, i) => [n, i]));
  const sorted = [...new Set(entryPoints)].sort(
    (a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0),
  );
  return {
    name: spec.name,
    nodes,
    agents,
    activation,
    edges: spec.edges,
    entryPoints: sorted,
    waitsFor: forwardSources(nodes, spec.edges),
  };
}

/** Per node, its sources that it cannot reach by following edges (see `waitsFor`). */
function forwardSources(
  nodes: readonly string[],
  edges: readonly GraphEdge[],
): Map<string, Set<string>> {
  const reach = (from: string): Set<string> => {
    const seen = new Set<string>();
    const stack = [from];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      for (const e of edges) {
        if (e.source === node && !seen.has(e.target)) {
          seen.add(e.target);
          stack.push(e.target);
        }
      }
    }
    return seen;
  };
  const result = new Map<string, Set<string>>();
  for (const node of nodes) {
    const reachable = reach(node);
    const sources = edges.filter((e) => e.target === node).map((e) => e.source);
    result.set(node, new Set(sources.filter((s) => !reachable.has(s))));
  }
  return result;
}
