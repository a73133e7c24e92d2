import { ConfigError } from '../../errors.js';
import type { StateOption } from '../../agents/conversation-state.js';
import type { ZodType, z } from 'zod';

import type { ChatAgent } from '../../agents/chat-agent.js';
import type { HandoffBrief } from '../../agents/handoff.js';
import type { HistoryView } from '../../messages/model-view.js';
import type { ClassifierFunction } from './handoff-router.js';

/** Options of `new HandoffBuilder()`. */
export interface HandoffBuilderOptions {
  /** Names the workflow in errors, the machine id and the graph. @default "handoff" */
  name?: string;
  participants: readonly ChatAgent[];
  /**
   * The conversation state: its zod schema and the value a new session starts with,
   * checked by `build()`. @default none: the state is `{}` and any JSON object is accepted
   */
  state?: StateOption;
  /**
   * What every generated handoff tool takes (its parameters), unless the coordinator or an edge
   * sets its own: a zod object, or `false` for handoffs without parameters.
   * @default z.object({ reason: z.string().optional() }): the model is asked why it hands off
   */
  handoffBrief?: HandoffBrief | false;
}

/** Options of `coordinator()`. */
export interface CoordinatorOptions {
  /** What the coordinator's handoffs carry. @default the workflow's `handoffBrief` */
  brief?: HandoffBrief | false;
  /** `'brief'`: its targets see the user's messages and the brief only. @default 'full' */
  history?: HistoryView;
}

/** Options of `withAutonomousMode()`. */
export interface AutonomousModeOptions {
  /** The agents that keep going without the user. @default every participant */
  agents?: readonly (ChatAgent | string)[];
  /** Answers in a row before the user is asked, per agent. @default 10 */
  turnLimits?: Readonly<Record<string, number>>;
  /** What the agent receives, as a user-role message, between two answers. @default "User did not respond. Continue assisting autonomously." */
  prompt?: string;
}

/** Options of `withUserReplyRouting('lazy', ...)`. */
export interface LazyRoutingOptions {
  /** When an answer contains it, the request is classified again. @default "This is outside my area" */
  handoffPhrase?: string | RegExp;
  /** Picks the specialist: an agent asked to hand off, or a function. @default the coordinator */
  classifier?: ChatAgent | ClassifierFunction;
  /** The user/agent turns a newly chosen specialist sees. @default all */
  contextTurns?: number;
}

/** Options of `withResolver()`. */
export interface ResolverOptions<S extends ZodType = ZodType> {
  /** The agent that answers in `schema`. @default the coordinator */
  agent?: ChatAgent | string;
  schema: S;
  /** The participant to take over, or `null` to send the agent's answer to the user. */
  resolve: (output: z.output<S>) => string | null;
}

/** `value` when it is a positive integer. @throws ConfigError naming `method`. */
export function positiveInteger(method: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ConfigError(`${method} needs a positive integer, got ${JSON.stringify(value)}.`, {
      path: method,
    });
  }
  return value;
}
