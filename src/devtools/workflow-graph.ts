import type { AnyStateMachine } from 'xstate';

import type { EdgeKind } from '../orchestrations/flat-machine.js';
import { labelBox, placeLabels } from './edge-labels.js';
import { curve, selfLoop } from './graph-curves.js';
import { layeredLayout } from './graph-layout.js';
import { type GraphNodeKind, machineShape } from './machine-edges.js';

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
  /** A graph workflow's node: `all` waits for every incoming edge (fan-in), `any` for one. */
  readonly activation?: 'all' | 'any';
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

// Room around the drawing inside its viewBox (the glow of a lit node, an arrow head).
const PAD = 24;

/**
 * Reads the routing graph of a compiled workflow or team from its XState machine (states and the
 * transitions of the routing events; a graph workflow's nodes and edges as built) and lays it out
 * in layers by distance from the initial state, left to right, or top down for a graph workflow
 * (as its `toMermaid()` does), so the devtools page can draw it without a graph library.
 */
export function workflowGraph(machine: AnyStateMachine): WorkflowGraph {
  const shape = machineShape(machine);
  const { kinds, agents } = shape;
  const labels = new Map<string, string>();
  for (const key of shape.keys) {
    const kind = kinds.get(key);
    const speaker = agents.get(key);
    labels.set(
      key,
      kind === 'input'
        ? 'user'
        : speaker === undefined
          ? key
          : speaker.router
            ? `${key} (${speaker.agent})`
            : speaker.agent,
    );
  }
  const placed = layeredLayout({
    keys: shape.keys,
    initial: shape.initial,
    edges: shape.edges,
    labels,
    besideInitial: new Set(shape.keys.filter((k) => kinds.get(k) === 'stopped')),
    direction: shape.isGraph ? 'TD' : 'LR',
  });
  const nodes = placed.map((p): GraphNode => {
    const speaker = agents.get(p.id);
    const activation = shape.activation.get(p.id);
    return {
      ...p,
      label: labels.get(p.id) ?? p.id,
      kind: kinds.get(p.id) ?? 'input',
      ...(speaker === undefined ? {} : { agent: speaker.agent }),
      ...(speaker?.router === true ? { router: true } : {}),
      ...(activation === undefined ? {} : { activation }),
    };
  });
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const nodeOf = (id: string): GraphNode => {
    const node = byId.get(id);
    // Every edge joins two states of the machine, and each state was placed.
    if (node === undefined) throw new Error(`workflowGraph(): an edge names no state "${id}".`);
    return node;
  };
  const pairs = new Set(shape.edges.map((e) => `${e.from}->${e.to}`));
  const bounds = {
    minX: Math.min(...nodes.map((n) => n.x - n.width / 2)),
    minY: Math.min(...nodes.map((n) => n.y - n.height / 2)),
    maxX: Math.max(...nodes.map((n) => n.x + n.width / 2)),
    maxY: Math.max(...nodes.map((n) => n.y + n.height / 2)),
  };
  const centre = { x: (bounds.minX + bounds.maxX) / 2, y: (bounds.minY + bounds.maxY) / 2 };
  const shaped = shape.edges.map((e) => {
    const from = nodeOf(e.from);
    const to = nodeOf(e.to);
    const drawn =
      e.from === e.to
        ? selfLoop(from)
        : curve(from, to, pairs.has(`${e.to}->${e.from}`), nodes, centre);
    // A quadratic curve stays inside the triangle of its points: the control point bounds it.
    bounds.minX = Math.min(bounds.minX, drawn.control.x);
    bounds.minY = Math.min(bounds.minY, drawn.control.y);
    bounds.maxX = Math.max(bounds.maxX, drawn.control.x);
    bounds.maxY = Math.max(bounds.maxY, drawn.control.y);
    return { ...e, drawn };
  });
  // Only labels with text take room: a graph's unconditional edges carry none.
  const labelled = shaped.filter((e) => shownLabel(e.kind, e.label) !== '');
  const places = placeLabels(
    labelled.map(({ kind, label, drawn }) => ({
      text: shownLabel(kind, label),
      preferred: { x: drawn.labelX, y: drawn.labelY },
      ...(drawn.ends === undefined
        ? {}
        : { curve: [drawn.ends[0], drawn.control, drawn.ends[1]] as const }),
    })),
    nodes.map((n) => ({
      left: n.x - n.width / 2,
      right: n.x + n.width / 2,
      top: n.y - n.height / 2,
      bottom: n.y + n.height / 2,
    })),
  );
  const placeOf = new Map(labelled.map((e, i) => [e, places[i]]));
  const edges = shaped.map((e): GraphEdge => {
    const at = placeOf.get(e) ?? { x: e.drawn.labelX, y: e.drawn.labelY };
    if (placeOf.has(e)) {
      const box = labelBox(shownLabel(e.kind, e.label), at);
      bounds.minX = Math.min(bounds.minX, box.left);
      bounds.maxX = Math.max(bounds.maxX, box.right);
      bounds.minY = Math.min(bounds.minY, box.top);
      bounds.maxY = Math.max(bounds.maxY, box.bottom);
    }
    return {
      id: `${e.from}->${e.to}`,
      from: e.from,
      to: e.to,
      kind: e.kind,
      label: e.label,
      path: e.drawn.path,
      labelX: at.x,
      labelY: at.y,
    };
  });
  const pad = PAD;
  const width = Math.ceil(bounds.maxX - bounds.minX + 2 * pad);
  const height = Math.ceil(bounds.maxY - bounds.minY + 2 * pad);
  const viewBox = `${Math.floor(bounds.minX - pad)} ${Math.floor(bounds.minY - pad)} ${width} ${height}`;
  return { id: machine.id, initial: shape.initial, nodes, edges, viewBox, width, height };
}

/** The text the page writes on an edge: a handoff's target is its arrow (the name is the tooltip). */
export const shownLabel = (kind: GraphEdgeKind, label: string) =>
  kind === 'handoff' ? 'handoff' : label;
