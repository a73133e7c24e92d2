/** What `MessageLines.push` found in a chunk. */
export interface PushedLines {
  /** The lines the chunk completed, oldest first, without their `\n` (or `\r\n`). */
  readonly lines: string[];
  /** True when a line grew past the limit; its bytes so far were dropped. */
  readonly tooLarge: boolean;
}

const NEWLINE = 0x0a;

/**
 * Splits the stdout of a stdio MCP server into its JSON-RPC lines, holding at most `maxBytes` of
 * a line that has not ended. A server may send anything, so the limit is data the transport acts
 * on, never an exception thrown from inside a stream listener (that would end the host process).
 * Pieces are kept as they came and joined once per line: a large message costs its size in copies,
 * not its size times the number of chunks.
 */
export class MessageLines {
  readonly #maxBytes: number;
  #pieces: Buffer[] = [];
  #size = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  push(chunk: Buffer): PushedLines {
    const lines: string[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, end);
      start = end + 1;
      if (this.#size + piece.length > this.#maxBytes) {
        this.clear();
        return { lines, tooLarge: true };
      }
      const line = this.#size === 0 ? piece : Buffer.concat([...this.#pieces, piece]);
      this.clear();
      lines.push(line.toString('utf8').replace(/\r$/, ''));
    }
    const rest = chunk.subarray(start);
    if (this.#size + rest.length > this.#maxBytes) {
      this.clear();
      return { lines, tooLarge: true };
    }
    if (rest.length > 0) {
      this.#pieces.push(rest);
      this.#size += rest.length;
    }
    return { lines, tooLarge: false };
  }

  /** Drops the part of a line not yet ended. */
  clear(): void {
    this.#pieces = [];
    this.#size = 0;
  }
}
