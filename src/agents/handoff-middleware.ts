import type { FunctionCall } from '../messages/message.js';
import type { Handoff } from './handoff.js';
import type { ToolMiddleware } from './tool-execution.js';

/**
 * The middleware that carries out handoffs: it answers a call to a handoff tool itself (the
 * result is the handoff's `message`) and reports it through `onHandoff`; every other call passes
 * through untouched. Only the first handoff call it sees is carried out; each later one gets an
 * error result saying it was ignored. Make one per model answer, and invoke calls in the model's
 * order, so that "first" means the model's first.
 */
export function interceptHandoffs(
  handoffs: ReadonlyMap<string, Handoff>,
  onHandoff: (handoff: Handoff, call: FunctionCall) => void,
): ToolMiddleware {
  let chosen: Handoff | undefined;
  return async (call, next) => {
    const handoff = handoffs.get(call.name);
    if (handoff === undefined) return next(call);
    if (chosen !== undefined) {
      return {
        callId: call.id,
        name: call.name,
        content:
          `Handoff to "${handoff.target}" was ignored: this answer already hands off to ` +
          `"${chosen.target}". Call one handoff tool per answer.`,
        isError: true,
      };
    }
    chosen = handoff;
    onHandoff(handoff, call);
    return { callId: call.id, name: call.name, content: handoff.message, isError: false };
  };
}
