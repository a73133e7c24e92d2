import type { FunctionCall } from '../messages/message.js';

/** One streamed piece of a tool call, as OpenAI-compatible servers send it. */
export interface ToolCallDelta {
  index: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: unknown } | null;
}

/**
 * Assembles streamed tool-call deltas into whole calls. Deltas are matched by `index` (they may
 * interleave); the id and name are taken as sent, the argument pieces are concatenated.
 */
export class ToolCallAssembler {
  readonly #byIndex = new Map<number, { id: string; name: string; arguments: string }>();

  add(delta: ToolCallDelta): void {
    let call = this.#byIndex.get(delta.index);
    if (call === undefined) {
      call = { id: '', name: '', arguments: '' };
      this.#byIndex.set(delta.index, call);
    }
    if (delta.id) call.id = delta.id;
    if (delta.function?.name) call.name = delta.function.name;
    // Some servers send the arguments whole, as a JSON object rather than text pieces.
    const args = delta.function?.arguments;
    if (typeof args === 'string') call.arguments += args;
    else if (args !== null && args !== undefined) call.arguments += JSON.stringify(args);
  }

  /** The calls in index order. */
  calls(): FunctionCall[] {
    return [...this.#byIndex.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => ({ id: call.id, name: call.name, arguments: call.arguments }));
  }
}
