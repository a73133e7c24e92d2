/** A point of the drawing. */
export interface Point {
  readonly x: number;
  readonly y: number;
}

/** An edge label to place: its text and, for a quadratic curve, the curve it belongs on. */
export interface LabelToPlace {
  readonly text: string;
  /** Where the label goes when nothing is in the way (the curve's middle, or a loop's side). */
  readonly preferred: Point;
  /** The quadratic curve (start, control, end) the label may slide along; none for a loop. */
  readonly curve?: readonly [Point, Point, Point];
}

/** An axis-aligned box of the drawing. */
export interface Box {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}

// The page writes edge labels in 10px type with a 3px white halo, anchored in the middle at the
// baseline. These bounds are generous (wider than any 10px glyph run the page's fonts draw), so
// boxes kept apart here stay apart on screen; the browser test checks the drawn boxes.
const CHAR_WIDTH = 6.5;
const HALO = 3;
const ASCENT = 10;
const DESCENT = 4;

/** The box a label drawn at `at` covers on the page (an upper bound). */
export function labelBox(text: string, at: Point): Box {
  const half = (text.length * CHAR_WIDTH) / 2 + HALO;
  return { left: at.x - half, right: at.x + half, top: at.y - ASCENT, bottom: at.y + DESCENT };
}

const overlaps = (a: Box, b: Box) =>
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

const onCurve = ([s, c, e]: readonly [Point, Point, Point], t: number): Point => ({
  x: (1 - t) ** 2 * s.x + 2 * (1 - t) * t * c.x + t ** 2 * e.x,
  y: (1 - t) ** 2 * s.y + 2 * (1 - t) * t * c.y + t ** 2 * e.y,
});

// Along the curve first (the label stays on its edge), from the middle outwards.
const ALONG = [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.2, 0.8];
const ACROSS = [0, 14, -14, 28, -28, 42, -42];

const round = (n: number) => Math.round(n * 10) / 10;

/**
 * Places every edge label where its box overlaps no other label and no node: on its own curve,
 * sliding from the middle towards the ends, then stepping off the curve vertically. Labels are
 * placed in order; the first free spot wins, so the drawing is the same on every load.
 */
export function placeLabels(labels: readonly LabelToPlace[], nodes: readonly Box[]): Point[] {
  const taken: Box[] = [...nodes];
  return labels.map((label) => {
    const curve = label.curve;
    const spots = curve === undefined ? [label.preferred] : ALONG.map((t) => onCurve(curve, t));
    for (const dy of ACROSS) {
      for (const spot of spots) {
        const at = { x: round(spot.x), y: round(spot.y + dy) };
        const box = labelBox(label.text, at);
        if (!taken.some((other) => overlaps(box, other))) {
          taken.push(box);
          return at;
        }
      }
    }
    // Nowhere free (a very dense graph): keep the preferred spot.
    const at = { x: round(label.preferred.x), y: round(label.preferred.y) };
    taken.push(labelBox(label.text, at));
    return at;
  });
}
