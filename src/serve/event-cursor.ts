/**
 * A position in a session's event stream, the SSE `id:` of every event: `<step>.<n>`. `step` is
 * the step the event belongs to (a streaming chunk belongs to the step being made); `n` is how
 * many of that step's events a client has once it has this one: a step's messages are
 * `<step>.1`, `<step>.2`, ...; the `result` that ends a run on that step follows its last message;
 * chunks come before the step's messages, as `<step>.0`.
 */
export interface Cursor {
  readonly step: number;
  readonly n: number;
}

/** Before everything. */
export const START: Cursor = { step: 0, n: 0 };

export function formatCursor(cursor: Cursor): string {
  return `${cursor.step}.${cursor.n}`;
}

/** The cursor of a `Last-Event-ID` header, or `undefined` when it is not one. */
export function parseCursor(text: string): Cursor | undefined {
  const match = /^(\d{1,15})\.(\d{1,15})$/.exec(text.trim());
  if (match === null) return undefined;
  return { step: Number(match[1]), n: Number(match[2]) };
}

/** Negative when `a` comes before `b`. */
export function compareCursors(a: Cursor, b: Cursor): number {
  return a.step - b.step || a.n - b.n;
}
