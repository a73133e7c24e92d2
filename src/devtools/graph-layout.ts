/** Which way the layers of a drawing run: left to right (columns), or top down (rows). */
export type LayoutDirection = 'LR' | 'TD';

/** A node placed by `layeredLayout()`: its centre and size. */
export interface PlacedNode {
  readonly id: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** What `layeredLayout()` places. */
export interface LayoutInput {
  /** Every node, in the order the workflow declares them (the tie-break of every ordering). */
  readonly keys: readonly string[];
  readonly initial: string;
  readonly edges: readonly { readonly from: string; readonly to: string }[];
  /** The text each node shows: a node is as wide as its text needs, and never narrower than 128. */
  readonly labels: ReadonlyMap<string, string>;
  /** Nodes no edge leads to that sit in the first layer, after the others (the `stopped` state). */
  readonly besideInitial: ReadonlySet<string>;
  readonly direction: LayoutDirection;
}

const NODE_W = 128;
const NODE_H = 40;
const MARGIN = 48;
// Room between two layers for an edge label and its arrow; between two nodes of one layer.
const LAYER_GAP = { LR: 82, TD: 56 } as const;
const SIBLING_GAP = { LR: 44, TD: 36 } as const;
// 13px labels in the page's sans-serif fonts stay under 7.2px a character, plus the padding.
const CHAR_W = 7.2;
const PADDING = 20;

/** The width of a node that shows `label`. */
export const nodeWidth = (label: string) =>
  Math.max(NODE_W, Math.ceil(label.length * CHAR_W + PADDING));

/**
 * Layers by breadth-first distance from the initial node (unreached nodes in a last layer, or
 * beside the initial one), each layer ordered by where its predecessors sit (fewer crossings),
 * then placed in columns (LR) or rows (TD), every layer centred on the widest.
 */
export function layeredLayout(input: LayoutInput): PlacedNode[] {
  const { keys, initial, edges, direction } = input;
  const layerOf = new Map<string, number>([[initial, 0]]);
  const queue = [initial];
  for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
    for (const e of edges) {
      if (e.from === key && !layerOf.has(e.to)) {
        layerOf.set(e.to, (layerOf.get(key) ?? 0) + 1);
        queue.push(e.to);
      }
    }
  }
  const deepest = Math.max(0, ...layerOf.values());
  for (const key of keys) {
    if (!layerOf.has(key)) layerOf.set(key, input.besideInitial.has(key) ? 0 : deepest + 1);
  }
  const layers: string[][] = [];
  for (const key of keys) {
    const l = layerOf.get(key) ?? 0;
    (layers[l] ??= []).push(key);
  }
  const order = orderLayers(layers, edges, input.besideInitial);

  const width = (key: string) => nodeWidth(input.labels.get(key) ?? key);
  const across = (key: string) => (direction === 'LR' ? NODE_H : width(key));
  const along = (key: string) => (direction === 'LR' ? width(key) : NODE_H);
  const spans = order.map((layer) =>
    layer.reduce((sum, key, i) => sum + across(key) + (i > 0 ? SIBLING_GAP[direction] : 0), 0),
  );
  const widest = Math.max(...spans);
  const nodes: PlacedNode[] = [];
  let depth = MARGIN;
  order.forEach((layer, l) => {
    const thickness = Math.max(...layer.map(along));
    let offset = MARGIN + (widest - (spans[l] ?? 0)) / 2;
    for (const key of layer) {
      const mid = offset + across(key) / 2;
      const centre = depth + thickness / 2;
      nodes.push({
        id: key,
        x: direction === 'LR' ? centre : mid,
        y: direction === 'LR' ? mid : centre,
        width: width(key),
        height: NODE_H,
      });
      offset += across(key) + SIBLING_GAP[direction];
    }
    depth += thickness + LAYER_GAP[direction];
  });
  return nodes.sort((a, b) => keys.indexOf(a.id) - keys.indexOf(b.id));
}

/**
 * Each layer after the first sorted by the mean position of its predecessors in earlier layers
 * (the barycenter heuristic); nodes without any keep their place, `besideInitial` ones go last.
 */
function orderLayers(
  layers: readonly (string[] | undefined)[],
  edges: LayoutInput['edges'],
  last: ReadonlySet<string>,
): string[][] {
  const position = new Map<string, number>();
  const ordered: string[][] = [];
  for (const layer of layers) {
    const list = layer ?? [];
    const score = new Map<string, number>();
    list.forEach((key, i) => {
      const from = edges.filter((e) => e.to === key && position.has(e.from));
      const mean = from.reduce((sum, e) => sum + (position.get(e.from) ?? 0), 0) / from.length;
      score.set(key, last.has(key) ? Number.POSITIVE_INFINITY : from.length > 0 ? mean : i);
    });
    const sorted = [...list].sort(
      (a, b) => (score.get(a) ?? 0) - (score.get(b) ?? 0) || list.indexOf(a) - list.indexOf(b),
    );
    sorted.forEach((key, i) => position.set(key, i));
    ordered.push(sorted);
  }
  return ordered;
}
