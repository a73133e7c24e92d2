/**
 * A position in a session's event stream, the SSE `id:` of every event: `<step>.<n>`. `step` is
 * the step the event belongs to (a streaming chunk belongs to the step being made); `n` is how
 * many of that step's events a client has once it has this one: a step's messages are
 * `<step>.1`, `<step>.2`, ...; the `result` that ends a run on that step follows its last message;
 * streaming chunks come before the step's messages, as `<step>.0.<k>` (the k-th chunk of the step
 * being made). Chunks are not in the step log, so they cannot take positions among the step's
 * messages: a message's id read back from the log in another process must be the id it had live.
 */
export interface Cursor {
  readonly step: number;
  readonly n: number;
  /** A streaming chunk's position among the chunks of `step` (with `n` 0). */
  readonly chunk?: number | undefined;
  /**
   * A draft that is no chunk (a tool event streamed before its step): its position after chunk
   * `chunk` (or 0). Such drafts are not sent with an id: only the engine orders them.
   */
  readonly draft?: number | undefined;
}

/** Before everything. */
export const START: Cursor = { step: 0, n: 0 };

export function formatCursor(cursor: Cursor): string {
  const id = `${cursor.step}.${cursor.n}`;
  return cursor.chunk === undefined ? id : `${id}.${cursor.chunk}`;
}

/** The cursor of a `Last-Event-ID` header, or `undefined` when it is not one. */
export function parseCursor(text: string): Cursor | undefined {
  const match = /^(\d{1,15})\.(\d{1,15})(?:\.(\d{1,15}))?$/.exec(text.trim());
  if (match === null) return undefined;
  const cursor = { step: Number(match[1]), n: Number(match[2]) };
  if (match[3] === undefined) return cursor;
  // Only a chunk (n 0) has a third part.
  return cursor.n === 0 ? { ...cursor, chunk: Number(match[3]) } : undefined;
}

/** Negative when `a` comes before `b`. */
export function compareCursors(a: Cursor, b: Cursor): number {
  return (
    a.step - b.step ||
    a.n - b.n ||
    (a.chunk ?? 0) - (b.chunk ?? 0) ||
    (a.draft ?? 0) - (b.draft ?? 0)
  );
}
