import type { ZodType } from 'zod';

import type { ChatAgent } from '../../agents/chat-agent.js';

/** The state where new requests are routed, when the workflow has one (lazy routing, resolver). */
export const ROUTER_STATE = 'classifying';

/** What a function classifier is given about each specialist. */
export interface ParticipantInfo {
  readonly name: string;
  readonly description: string;
}

/** A classifier in code: picks a participant's name for the user's text. */
export type ClassifierFunction = (
  text: string,
  participants: readonly ParticipantInfo[],
) => string | Promise<string>;

/** How requests are routed in the `classifying` state. */
export type Router =
  /** An agent asked to hand off (the coordinator by default, in lazy routing). */
  | { readonly kind: 'agent'; readonly agent: ChatAgent }
  /** A function of the user's text; no model call. */
  | { readonly kind: 'function'; readonly classify: ClassifierFunction }
  /** An agent answering in `schema`; `resolve` turns its answer into a target, or null. */
  | {
      readonly kind: 'resolver';
      readonly agent: ChatAgent;
      readonly schema: ZodType;
      readonly resolve: (output: never) => string | null;
    };

/** Lazy routing, resolved: when a specialist's answer sends the request back to the router. */
export interface LazySettings {
  readonly phrase: string | RegExp;
  /** The turns a newly routed specialist sees (undefined: all). */
  readonly contextTurns: number | undefined;
}

/** True when `text` contains the handoff phrase. */
export function saysPhrase(phrase: string | RegExp, text: string): boolean {
  if (typeof phrase === 'string') return text.includes(phrase);
  phrase.lastIndex = 0;
  return phrase.test(text);
}
