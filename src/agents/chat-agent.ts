import type { ZodType } from 'zod';

import type {
  AgentEvent,
  AgentMessage,
  ChatMessage,
  ToolApprovalRequestEvent,
  ToolInDoubtEvent,
} from '../messages/message.js';
import type { HandoffInfo } from '../messages/handoff-brief.js';
import type { HistoryView, ToolCallFilter } from '../messages/model-view.js';
import type { ModelCallPlan, ModelCallRefusal, SettledUsage } from '../termination/model-call.js';
import type { Handoff, HandoffBrief } from './handoff.js';
import type { StateValue } from './conversation-state.js';
import type { TurnState } from './turn-state.js';

/**
 * A `when` guard of a handoff: true while the handoff may be offered. It also reads
 * the handoff that gave the agent the floor (`ctx.handoff`), if any.
 */
export type HandoffGuard = (state: StateValue, ctx: HandoffGuardContext) => boolean;

/** What a `when` guard reads besides the state. */
export interface HandoffGuardContext {
  /** The handoff that gave the agent the floor, until the next handoff. */
  readonly handoff?: HandoffInfo;
}

/**
 * What an agent is given for one turn. The first five fields are the public ones; the optional ones are
 * Baton extensions that an orchestration (the `HandoffBuilder`) sets so that the same agent object
 * can take part in workflows with different routing, without being changed.
 */
export interface AgentContext {
  /**
   * The whole thread of the session so far: every agent's messages and events. A session gives a
   * frozen array (pushing onto it throws), which never changes: an agent may keep it.
   */
  conversation: readonly AgentMessage[];
  /** Chat messages since this agent last responded. */
  newMessages: readonly ChatMessage[];
  /** Aborts the turn: the model call in flight and running tools. */
  signal: AbortSignal;
  sessionId: string;
  /**
   * Receives, as they happen, every `ModelClientStreamingChunkEvent` and every inner event
   * (thoughts, tool call requests and executions). The inner events are also returned in
   * `AgentResponse.innerMessages`, which is what belongs in the thread; chunks are not.
   */
  emit(event: AgentEvent): void;
  /**
   * Extra handoff targets granted for this turn, merged with the agent's own; when both name the
   * same target, the agent's own handoff is used.
   */
  handoffs?: readonly Handoff[];
  /** Which tool calls the agent's view of `conversation` removes. @default 'handoff' */
  toolCallFilter?: ToolCallFilter;
  /** At most this many recent messages in the model request (see `toModelMessages`). */
  contextWindow?: number;
  /** `'brief'`: the model sees the user's messages and the briefs, not other agents' turns. */
  history?: HistoryView;
  /**
   * Answer in this structured format for this turn (a `StructuredMessage`), e.g. when a workflow
   * routes with a resolver. Overrides the agent's own `outputSchema`.
   */
  outputSchema?: ZodType;
  /** The brief of the agent's own handoffs that have none (a team's `handoffBrief`). */
  handoffBrief?: HandoffBrief;
  /** `false`: offer no handoff tools this turn, not even the agent's own. @default true */
  offerHandoffs?: boolean;
  /**
   * The session's conversation state for this turn, which the agent's tools read and
   * update. @default an empty state of this turn alone
   */
  state?: TurnState;
  /**
   * Handoffs (by target) offered only while their `when` guard holds on the state, checked at
   * every model call of the turn.
   */
  handoffGuards?: ReadonlyMap<string, HandoffGuard>;
  /**
   * Commits the start of a batch of tool calls with a `"once"` call: the session
   * records `events` (the turn's events so far, its tool call request last) as one step before
   * the calls run. Absent outside a session: nothing is committed.
   */
  startCalls?: (events: readonly AgentEvent[]) => Promise<void>;
  /** The calls whose decision this run gave (their start): they run, they are not in doubt. */
  startedCalls?: ReadonlySet<string>;
  /**
   * Asked before each model call of the turn (a budget in money): a refusal means the call is not
   * made, and the turn ends by throwing `ModelCallRefused` with what it did so far. Absent
   * outside a session, or when nothing in it judges model calls.
   */
  admitModelCall?: (
    call: ModelCallPlan,
  ) => ModelCallRefusal | null | Promise<ModelCallRefusal | null>;
  /** Told when a call `admitModelCall` let through has ended: what it used (`null`: it failed). */
  settleModelCall?: (call: ModelCallPlan, usage: SettledUsage) => void | Promise<void>;
}

/** An agent's answer for one turn: one chat message, and the events that led to it. */
export interface AgentResponse {
  chatMessage: ChatMessage;
  innerMessages?: AgentEvent[];
}

/**
 * A turn that paused for approvals: the calls awaiting a decision, and the events so
 * far (the model's calls, the results of those that needed no approval, then `approvalRequest`).
 * The session records them as one step and asks the agent again once every call is decided.
 */
export interface AgentPause {
  /** The calls awaiting approval, or the calls in doubt. */
  approvalRequest: ToolApprovalRequestEvent | ToolInDoubtEvent;
  innerMessages: AgentEvent[];
  /** The roles that may decide these calls (their tools' `approvers`); none: the owner. */
  waitingFor?: readonly string[] | undefined;
}

/**
 * Anything that can take a turn in a team or workflow. Agents are stateless: all conversation
 * state lives in the session, so one agent object can serve any number of sessions at once.
 */
export interface ChatAgent {
  /** Matches `/^[A-Za-z][A-Za-z0-9_-]{0,63}$/`. */
  readonly name: string;
  readonly description: string;
  respond(ctx: AgentContext): Promise<AgentResponse>;
  /**
   * A turn that may pause for approvals; sessions call it instead of `respond()` when present
   * (`Agent` has it). Called again after the pause with the decisions in `ctx.conversation`.
   */
  takeTurn?(ctx: AgentContext): Promise<AgentResponse | AgentPause>;
}
