import type { StopMessage, Usage } from '../messages/message.js';

/**
 * A model call about to be made, as a condition that limits spending sees it: who calls which
 * model, and the most tokens the call can take (its prompt, estimated, and the longest answer
 * allowed).
 */
export interface ModelCallPlan {
  /** The agent making the call. */
  readonly agent: string;
  /** The model the client names (`ChatClient.model`); undefined when it names none. */
  readonly model: string | undefined;
  /** The prompt's tokens: an estimate from its text, or the last call's prompt size if larger. */
  readonly promptTokens: number;
  /** The longest answer the client allows (`ChatClient.maxCompletionTokens`), when it says. */
  readonly maxCompletionTokens: number | undefined;
}

/**
 * A condition's answer to a model call it does not allow: the stop it means, and whether the
 * session should ask someone for more (`ask`, a `"budget"` request) instead of stopping.
 */
export interface ModelCallRefusal {
  readonly stop: StopMessage;
  readonly ask: boolean;
}

/** What a settled call cost in tokens; `null` when the call failed and used nothing known. */
export type SettledUsage = Usage | null;
