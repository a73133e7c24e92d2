import type { FunctionCall, FunctionExecutionResult } from '../messages/message.js';
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
    const result = handoffResult(call, handoff, chosen);
    if (chosen === undefined) {
      chosen = handoff;
      onHandoff(handoff, call);
    }
    return result;
  };
}

/**
 * The result of a call to `handoff`'s tool: the handoff's message, or, when the answer already
 * handed off to `chosen`, an error saying this one was ignored.
 */
export function handoffResult(
  call: FunctionCall,
  handoff: Handoff,
  chosen: Handoff | undefined,
): FunctionExecutionResult {
  if (chosen === undefined) {
    return { callId: call.id, name: call.name, content: handoff.message, isError: false };
  }
  return {
    callId: call.id,
    name: call.name,
    content:
      `Handoff to "${handoff.target}" was ignored: this answer already hands off to ` +
      `"${chosen.target}". Call one handoff tool per answer.`,
    isError: true,
  };
}
