import type { AnyStateMachine } from 'xstate';

import type { EdgeKind } from '../orchestrations/flat-machine.js';
import { placeLabels } from './edge-labels.js';
import { curve, selfLoop } from './graph-curves.js';

/** What a node of the drawn graph stands for: a participant, the user, a selector, the stop. */
export type GraphNodeKind = 'agent' | 'input' | 'select' | 'stopped';

/** What an edge of the drawn graph means: the kind its machine gave the transition. */
export type GraphEdgeKind = EdgeKind;

/** One state of the compiled machine, with where the devtools page draws it. */
export interface GraphNode {
  /** The machine state's key (what a session's `machineState` holds). */
  readonly id: string;
  readonly label: string;
  readonly kind: GraphNodeKind;
  /** For an agent state: the agent who speaks there. */
  readonly agent?: string;
  /** The state where a router agent (a lazy-routing classifier) picks the specialist. */
  readonly router?: boolean;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** One transition of the compiled machine (deduplicated), with its drawn path. */
export interface GraphEdge {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly kind: GraphEdgeKind;
  readonly label: string;
  /** SVG path data from the border of `from` to the border of `to`. */
  readonly path: string;
  readonly labelX: number;
  readonly labelY: number;
}

/** A workflow's routing graph read from its statechart, laid out for an SVG. */
export interface WorkflowGraph {
  readonly id: string;
  readonly initial: string;
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
  /** The drawing's bounds (nodes and curves), as an SVG `viewBox`: `x y width height`. */
  readonly viewBox: string;
  readonly width: number;
  readonly height: number;
}

const NODE_W = 128;
const NODE_H = 40;
const COLUMN_GAP = 210;
const ROW_GAP = 84;
const MARGIN = 48;

/** The kind of a transition on the drawing (its `meta.edge`); `stop` and `resume` have none. */
function edgeKindOf(meta: unknown): GraphEdgeKind | undefined {
  const kind = (meta as { edge?: unknown } | undefined)?.edge;
  return typeof kind === 'string' && Object.hasOwn(LABELS, kind)
    ? (kind as GraphEdgeKind)
    : undefined;
}

const LABELS: Record<GraphEdgeKind, (to: string) => string> = {
  handoff: (to) => `handoff_to_${to}`,
  next: () => 'next',
  continues: () => 'continues',
  asks: () => 'asks',
  leaves: () => 'hands off to user',
  message: () => 'message',
  reply: () => 'reply',
  selects: () => 'selected',
  reroute: () => 'outside my area',
};

/**
 * Reads the routing graph of a compiled workflow or team from its XState machine (states and the
 * transitions of the routing events) and lays it out in columns by distance from the initial
 * state, so the devtools page can draw it without a graph library.
 */
export function workflowGraph(machine: AnyStateMachine): WorkflowGraph {
  const states = Object.entries(machine.root.states);
  const kinds = new Map<string, GraphNodeKind>();
  const labels = new Map<string, string>();
  const agents = new Map<string, { agent: string; router: boolean }>();
  for (const [key, node] of states) {
    const meta = node.meta as { kind?: string; agent?: string; router?: boolean } | undefined;
    const kind: GraphNodeKind =
      meta?.kind === 'agent' || meta?.kind === 'select' || meta?.kind === 'stopped'
        ? meta.kind
        : 'input';
    kinds.set(key, kind);
    const router = meta?.router === true;
    if (kind === 'agent') agents.set(key, { agent: meta?.agent ?? key, router });
    const agent = meta?.agent ?? key;
    labels.set(
      key,
      kind === 'input' ? 'user' : kind === 'agent' ? (router ? `${key} (${agent})` : agent) : key,
    );
  }

  const raw: { from: string; to: string; kind: GraphEdgeKind }[] = [];
  const seen = new Set<string>();
  for (const [key, node] of states) {
    const fromKind = kinds.get(key) ?? 'input';
    for (const transitions of node.transitions.values()) {
      for (const t of transitions) {
        const to = t.target?.[0]?.key;
        const kind = edgeKindOf(t.meta);
        if (to === undefined || !kinds.has(to) || kind === undefined) continue;
        // From `stopped` only user input leads on (a message continues a stopped session), so the
        // node is drawn connected, by those edges.
        if (fromKind === 'stopped' && kind !== 'message' && kind !== 'reply') continue;
        const id = `${key}->${to}`;
        if (seen.has(id)) continue;
        seen.add(id);
        raw.push({ from: key, to, kind });
      }
    }
  }

  const initial = machine.root.initial?.target[0]?.key ?? states[0]?.[0] ?? '';
  const nodes = layout(
    states.map(([key]) => key),
    initial,
    raw,
    kinds,
    labels,
  ).map((node) => {
    const speaker = agents.get(node.id);
    if (speaker === undefined) return node;
    return { ...node, agent: speaker.agent, ...(speaker.router ? { router: true } : {}) };
  });
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const pairs = new Set(raw.map((e) => `${e.from}->${e.to}`));
  const bounds = {
    minX: Math.min(...nodes.map((n) => n.x - n.width / 2)),
    minY: Math.min(...nodes.map((n) => n.y - n.height / 2)),
    maxX: Math.max(...nodes.map((n) => n.x + n.width / 2)),
    maxY: Math.max(...nodes.map((n) => n.y + n.height / 2)),
  };
  const centre = { x: (bounds.minX + bounds.maxX) / 2, y: (bounds.minY + bounds.maxY) / 2 };
  const shaped = raw.map((e) => {
    const from = byId.get(e.from) as GraphNode;
    const to = byId.get(e.to) as GraphNode;
    const shape =
      e.from === e.to
        ? selfLoop(from)
        : curve(from, to, pairs.has(`${e.to}->${e.from}`), nodes, centre);
    // A quadratic curve stays inside the triangle of its points: the control point bounds it.
    bounds.minX = Math.min(bounds.minX, shape.control.x);
    bounds.minY = Math.min(bounds.minY, shape.control.y);
    bounds.maxX = Math.max(bounds.maxX, shape.control.x);
    bounds.maxY = Math.max(bounds.maxY, shape.control.y);
    return { ...e, shape, label: LABELS[e.kind](agents.get(e.to)?.agent ?? e.to) };
  });
  const places = placeLabels(
    shaped.map(({ kind, label, shape }) => ({
      text: shownLabel(kind, label),
      preferred: { x: shape.labelX, y: shape.labelY },
      ...(shape.ends === undefined
        ? {}
        : { curve: [shape.ends[0], shape.control, shape.ends[1]] as const }),
    })),
    nodes.map((n) => ({
      left: n.x - n.width / 2,
      right: n.x + n.width / 2,
      top: n.y - n.height / 2,
      bottom: n.y + n.height / 2,
    })),
  );
  const edges = shaped.map((e, i): GraphEdge => {
    const at = places[i] ?? { x: e.shape.labelX, y: e.shape.labelY };
    bounds.minX = Math.min(bounds.minX, at.x - 40);
    bounds.maxX = Math.max(bounds.maxX, at.x + 40);
    bounds.minY = Math.min(bounds.minY, at.y - 12);
    bounds.maxY = Math.max(bounds.maxY, at.y + 6);
    return {
      id: `${e.from}->${e.to}`,
      from: e.from,
      to: e.to,
      kind: e.kind,
      label: e.label,
      path: e.shape.path,
      labelX: at.x,
      labelY: at.y,
    };
  });
  const pad = MARGIN / 2;
  const width = Math.ceil(bounds.maxX - bounds.minX + 2 * pad);
  const height = Math.ceil(bounds.maxY - bounds.minY + 2 * pad);
  const viewBox = `${Math.floor(bounds.minX - pad)} ${Math.floor(bounds.minY - pad)} ${width} ${height}`;
  return { id: machine.id, initial, nodes, edges, viewBox, width, height };
}

/** The text the page writes on an edge: a handoff's target is its arrow (the name is the tooltip). */
export const shownLabel = (kind: GraphEdgeKind, label: string) =>
  kind === 'handoff' ? 'handoff' : label;

/** Columns by breadth-first distance from the initial state; `stopped` sits under the user. */
function layout(
  keys: readonly string[],
  initial: string,
  edges: readonly { from: string; to: string }[],
  kinds: ReadonlyMap<string, GraphNodeKind>,
  labels: ReadonlyMap<string, string>,
): GraphNode[] {
  const column = new Map<string, number>([[initial, 0]]);
  const queue = [initial];
  while (queue.length > 0) {
    const key = queue.shift() as string;
    const depth = column.get(key) ?? 0;
    for (const e of edges) {
      if (e.from === key && !column.has(e.to)) {
        column.set(e.to, depth + 1);
        queue.push(e.to);
      }
    }
  }
  const deepest = Math.max(0, ...column.values());
  for (const key of keys) {
    if (column.has(key)) continue;
    column.set(key, kinds.get(key) === 'stopped' ? 0 : deepest + 1);
  }
  const columns = new Map<number, string[]>();
  for (const key of keys) {
    const c = column.get(key) ?? 0;
    const list = columns.get(c) ?? [];
    if (kinds.get(key) === 'stopped') list.push(key);
    else list.splice(list.filter((k) => kinds.get(k) !== 'stopped').length, 0, key);
    columns.set(c, list);
  }
  const tallest = Math.max(...[...columns.values()].map((l) => l.length));
  const nodes: GraphNode[] = [];
  for (const [c, list] of columns) {
    list.forEach((key, row) => {
      const offset = ((tallest - list.length) * ROW_GAP) / 2;
      nodes.push({
        id: key,
        label: labels.get(key) ?? key,
        kind: kinds.get(key) ?? 'input',
        x: MARGIN + NODE_W / 2 + c * COLUMN_GAP,
        y: MARGIN + NODE_H / 2 + offset + row * ROW_GAP,
        width: NODE_W,
        height: NODE_H,
      });
    });
  }
  return nodes.sort((a, b) => keys.indexOf(a.id) - keys.indexOf(b.id));
}
