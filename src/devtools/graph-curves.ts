import type { Point } from './edge-labels.js';
import type { GraphEdge, GraphNode } from './workflow-graph.js';

/** An edge's drawn path, where its label goes by default, and the curve that bounds it. */
export type Shape = Pick<GraphEdge, 'path' | 'labelX' | 'labelY'> & {
  readonly control: Point;
  /** Where a curve starts and ends; a loop has none (its label stays beside it). */
  readonly ends?: readonly [Point, Point];
};

const round = (n: number) => Math.round(n * 10) / 10;

/** Where the ray from a node's centre towards (x, y) leaves its rectangle. */
function border(node: GraphNode, x: number, y: number): { x: number; y: number } {
  const dx = x - node.x;
  const dy = y - node.y;
  if (dx === 0 && dy === 0) return { x: node.x, y: node.y };
  const scale = Math.min(
    dx === 0 ? Number.POSITIVE_INFINITY : node.width / 2 / Math.abs(dx),
    dy === 0 ? Number.POSITIVE_INFINITY : node.height / 2 / Math.abs(dy),
  );
  return { x: node.x + dx * scale, y: node.y + dy * scale };
}

/**
 * A quadratic curve between two nodes. Edges in both directions bend to opposite sides; an edge
 * whose straight line would cross another node bends around it, towards the outside of the graph.
 */
export function curve(
  from: GraphNode,
  to: GraphNode,
  twoWay: boolean,
  nodes: readonly GraphNode[],
  centre: { x: number; y: number },
): Shape {
  const mx = (from.x + to.x) / 2;
  const my = (from.y + to.y) / 2;
  const length = Math.hypot(to.x - from.x, to.y - from.y) || 1;
  // The unit normal, on the left of the direction from → to.
  let nx = -(to.y - from.y) / length;
  let ny = (to.x - from.x) / length;
  let bend = twoWay ? 22 : 0;
  const blocked = nodes.some(
    (n) => n !== from && n !== to && distanceToSegment(n, from, to) < n.height,
  );
  if (blocked) {
    bend = Math.min(120, 30 + length / 6) + bend;
    const outwards = (mx + nx - centre.x) ** 2 + (my + ny - centre.y) ** 2;
    const inwards = (mx - nx - centre.x) ** 2 + (my - ny - centre.y) ** 2;
    if (inwards > outwards) {
      nx = -nx;
      ny = -ny;
    }
  }
  const cx = mx + nx * bend * 2;
  const cy = my + ny * bend * 2;
  const start = border(from, cx, cy);
  const end = border(to, cx, cy);
  return {
    path: `M${round(start.x)},${round(start.y)} Q${round(cx)},${round(cy)} ${round(end.x)},${round(end.y)}`,
    labelX: round(0.25 * start.x + 0.5 * cx + 0.25 * end.x),
    labelY: round(0.25 * start.y + 0.5 * cy + 0.25 * end.y),
    control: { x: cx, y: cy },
    ends: [start, end],
  };
}

function distanceToSegment(p: GraphNode, a: GraphNode, b: GraphNode): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const t = Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

/** A loop on the right of a node (the last column is usually free there). */
export function selfLoop(node: GraphNode): Shape {
  const right = node.x + node.width / 2;
  const y1 = node.y - 10;
  const y2 = node.y + 10;
  return {
    path: `M${right},${y1} C${right + 46},${y1 - 18} ${right + 46},${y2 + 18} ${right},${y2}`,
    labelX: right + 30,
    labelY: node.y - 24,
    control: { x: right + 64, y: node.y },
  };
}
