import type { AnyStateMachine } from 'xstate';

import type { GroupDrawing } from '../engine/orchestration.js';
import type { EdgeKind } from '../orchestrations/flat-machine.js';
import { fieldOf } from '../unknown-value.js';

/** What a node of the drawn graph stands for: a participant, the user, a selector, the stop. */
export type GraphNodeKind = 'agent' | 'input' | 'select' | 'stopped';

/** An edge to draw, before layout: its kind, and the text it carries (may be empty). */
export interface RawEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: EdgeKind;
  readonly label: string;
}

/** The states of a machine to draw, what each is, and the edges between them. */
export interface MachineShape {
  /** State keys in the machine's order, without states that are not drawn (a group state). */
  readonly keys: readonly string[];
  readonly initial: string;
  readonly kinds: ReadonlyMap<string, GraphNodeKind>;
  readonly agents: ReadonlyMap<string, { readonly agent: string; readonly router: boolean }>;
  readonly edges: readonly RawEdge[];
  /** A graph workflow's activation per node (fan-in: `all` waits for every incoming edge). */
  readonly activation: ReadonlyMap<string, 'all' | 'any'>;
  /** True for a `GraphBuilder` workflow: its nodes and edges come from the group's drawing. */
  readonly isGraph: boolean;
}

const LABELS: Record<EdgeKind, (to: string) => string> = {
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

/** The kind of a transition on the drawing (its `meta.edge`); `stop` and `resume` have none. */
function edgeKindOf(meta: unknown): EdgeKind | undefined {
  const kind = fieldOf(meta, 'edge');
  return typeof kind === 'string' && isEdgeKind(kind) ? kind : undefined;
}

function isEdgeKind(kind: string): kind is EdgeKind {
  return Object.hasOwn(LABELS, kind);
}

/** The text a graph edge carries: its `when` (text, or the predicate's name), none without. */
function conditionLabel(when: GroupDrawing['edges'][number]['when']): string {
  if (when === undefined) return '';
  if ('text' in when) return when.text;
  // An arrow written inline (`{ when: (m) => … }`) is named after the property: no name of its own.
  return when.predicate === '' || when.predicate === 'when' ? 'when' : `${when.predicate}()`;
}

/**
 * Reads what to draw of a compiled workflow or team: its states and the transitions of its routing
 * events. A graph workflow's group state (`dispatching`) is not drawn: every answer returns to
 * it, so its drawing (the graph as built) gives the edges instead, and a task leads from the user
 * and from `stopped` to the entry points.
 */
export function machineShape(machine: AnyStateMachine): MachineShape {
  const states = Object.entries(machine.root.states);
  const kinds = new Map<string, GraphNodeKind>();
  const agents = new Map<string, { agent: string; router: boolean }>();
  let drawing: GroupDrawing | undefined;
  let group: string | undefined;
  for (const [key, node] of states) {
    // XState types `meta` as any; the orchestrations write it in this shape (flat-machine.ts).
    const meta:
      { kind?: string; agent?: string; router?: boolean; drawing?: GroupDrawing } | undefined =
      node.meta;
    if (meta?.kind === 'group' && meta.drawing !== undefined) {
      drawing = meta.drawing;
      group = key;
      continue;
    }
    const kind: GraphNodeKind =
      meta?.kind === 'agent' || meta?.kind === 'select' || meta?.kind === 'stopped'
        ? meta.kind
        : 'input';
    kinds.set(key, kind);
    if (kind === 'agent')
      agents.set(key, { agent: meta?.agent ?? key, router: meta?.router === true });
  }
  const initial = machine.root.initial?.target[0]?.key ?? states[0]?.[0] ?? '';
  const keys = [...kinds.keys()];
  if (drawing !== undefined) {
    const edges: RawEdge[] = [];
    for (const [key, kind] of kinds) {
      if (kind !== 'input' && kind !== 'stopped') continue;
      for (const to of drawing.entryPoints)
        edges.push({ from: key, to, kind: 'message', label: 'message' });
    }
    const seen = new Set<string>();
    for (const e of drawing.edges) {
      // Two edges between the same nodes are one arrow (the first condition is its label).
      if (seen.has(`${e.source}->${e.target}`)) continue;
      seen.add(`${e.source}->${e.target}`);
      edges.push({ from: e.source, to: e.target, kind: 'next', label: conditionLabel(e.when) });
    }
    const activation = new Map(drawing.nodes.map((n) => [n.name, n.activation] as const));
    return {
      keys,
      initial: initial === group ? (keys[0] ?? '') : initial,
      kinds,
      agents,
      edges,
      activation,
      isGraph: true,
    };
  }

  const edges: RawEdge[] = [];
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
        const label = LABELS[kind](agents.get(to)?.agent ?? to);
        // A guarded handoff shows its guard's name, as the machine knows it.
        const guard = fieldOf(t.meta, 'guard');
        edges.push({
          from: key,
          to,
          kind,
          label: typeof guard === 'string' ? `${label} [${guard}]` : label,
        });
      }
    }
  }
  return { keys, initial, kinds, agents, edges, activation: new Map(), isGraph: false };
}
