import type { FunctionCall, FunctionExecutionResult } from '../messages/message.js';
import type { Handoff } from './handoff.js';
import type { ToolMiddleware } from './tool-execution.js';

/** Told of the handoff an answer makes: the handoff, the call and its checked brief. */
export type OnHandoff = (handoff: Handoff, brief: unknown, call: FunctionCall) => void;

/**
 * The middleware that carries out handoffs: it answers a call to a handoff tool itself (the
 * result is the handoff's `message`) and reports it through `onHandoff`; every other call passes
 * through untouched. Only the first handoff call with a valid brief is carried out; a call whose
 * brief fails gets an error result naming the field, and each call after the chosen one gets an
 * error result saying it was ignored. Make one per model answer, and invoke calls in the model's
 * order, so that "first" means the model's first.
 */
export function interceptHandoffs(
  handoffs: ReadonlyMap<string, Handoff>,
  onHandoff: OnHandoff,
): ToolMiddleware {
  const choice: HandoffChoice = { chosen: undefined };
  return async (call, next) => {
    const handoff = handoffs.get(call.name);
    if (handoff === undefined) return next(call);
    return handoffResult(call, handoff, choice, onHandoff);
  };
}

/** The handoff an answer has carried out so far, if any. */
export interface HandoffChoice {
  chosen: Handoff | undefined;
}

/**
 * The result of a call to `handoff`'s tool: the handoff's message (and the handoff becomes
 * `choice.chosen`, reported to `onHandoff`), an error naming the brief's bad field, or, when the
 * answer already handed off, an error saying this one was ignored.
 */
export function handoffResult(
  call: FunctionCall,
  handoff: Handoff,
  choice: HandoffChoice,
  onHandoff: OnHandoff,
): FunctionExecutionResult {
  const { chosen } = choice;
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
  const read = handoff.readBrief(call);
  if (!read.ok) return { callId: call.id, name: call.name, content: read.error, isError: true };
  choice.chosen = handoff;
  onHandoff(handoff, read.brief, call);
  return { callId: call.id, name: call.name, content: handoff.message, isError: false };
}
