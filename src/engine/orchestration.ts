import type { AnyStateMachine } from 'xstate';

import type { AgentContext, AgentResponse, ChatAgent } from '../agents/chat-agent.js';
import type { Guardrail } from '../agents/guardrail.js';
import type { AgentEvent, AgentMessage, ChatMessage } from '../messages/message.js';
import type { SessionState } from './session-state.js';
import type { StopRule } from './stop-rule.js';

/** What a state of a compiled machine means to the engine, read from the state node's `meta`. */
export type StateMeta =
  | { readonly kind: 'agent'; readonly agent: string; readonly router?: boolean }
  /** The session waits for the user; with `asks`, the agent's answer becomes a pending request. */
  | { readonly kind: 'input'; readonly asks?: boolean }
  /** The orchestration picks the next speaker (`selectSpeaker`), e.g. with a model. */
  | { readonly kind: 'select' }
  /**
   * Several participants answer at once: the orchestration names them (`selectSpeakers`), they
   * run concurrently on the same thread, and their answers are committed as one step.
   */
  | { readonly kind: 'group' }
  | { readonly kind: 'stopped' };

/**
 * The small fixed set of events the engine sends to every compiled machine. Orchestrations decide
 * the optional fields; guards in the machine read them, so a transition is a pure function of
 * (state, event) and can be cached.
 */
export type MachineEvent =
  | {
      readonly type: 'agent_responded';
      /** The participant the response hands off to. */
      readonly handoffTo?: string;
      /** The agent keeps the floor without the user (autonomous mode). */
      readonly keepGoing?: boolean;
      /** The response hands off to someone outside the team (e.g. `"user"`). */
      readonly leavesTeam?: boolean;
      /** The response sends the request back to be routed again (lazy routing). */
      readonly reroute?: boolean;
    }
  | { readonly type: 'user_replied'; readonly replyTo?: string }
  | { readonly type: 'speaker_selected'; readonly agent: string }
  /** A selector found nobody to speak: the floor goes back to the user (see `SpeakerChoice`). */
  | { readonly type: 'user_asked' }
  | { readonly type: 'stop' }
  | { readonly type: 'resume'; readonly to: string };

/** How an orchestration reads an agent's response. */
export interface ResponseRouting {
  readonly event: MachineEvent;
  /** Messages the orchestration adds after the response, in the same step (e.g. a prompt). */
  readonly followUp?: readonly ChatMessage[];
  /** The orchestration's own progress after this step (`SessionState.progress`); omitted: kept. */
  readonly progress?: unknown;
}

/** Who answers in a `group` state: some participants, or nobody (the run is complete). */
export type SpeakerGroup =
  | { readonly agents: readonly string[] }
  /** Nobody is due: the run ends `terminated` with this stop reason (no StopMessage). */
  | { readonly complete: string };

/** One participant's answer in a `group` step. */
export interface GroupAnswer {
  readonly agent: string;
  readonly response: AgentResponse;
}

/** Extra fields an orchestration gives an agent for one turn (handoff tools, view options). */
export type AgentTurnOptions = Partial<
  Pick<
    AgentContext,
    'handoffs' | 'toolCallFilter' | 'contextWindow' | 'outputSchema' | 'offerHandoffs'
  >
> & {
  /** The agent sees the thread from this index on (e.g. only the last few turns). @default 0 */
  conversationFrom?: number;
};

/** A selector's choice, with the event that records it in the thread when it should be seen. */
export type SpeakerChoice =
  | string
  | { readonly agent: string; readonly event: AgentEvent }
  /** Nobody should speak: `agent` asks the user `prompt` (a normal pause, from the select state). */
  | { readonly askUser: { readonly agent: string; readonly prompt: string } };

/**
 * What an orchestration (HandoffBuilder, a team) compiles to: a machine and the few decisions
 * the engine cannot make alone. The engine runs any orchestration the same way.
 */
export interface Orchestration {
  readonly name: string;
  readonly machine: AnyStateMachine;
  readonly participants: ReadonlyMap<string, ChatAgent>;
  readonly maxTurns: number;
  readonly stopRule: StopRule | undefined;
  /** Checks of each run's task (`input`) and each agent's final answer (`output`). */
  readonly guardrails?: {
    readonly input: readonly Guardrail[];
    readonly output: readonly Guardrail[];
  };
  /**
   * Participants, topology and routing as plain JSON; a stored session must have been written by
   * a workflow with the same descriptor (its hash is the fingerprint).
   */
  readonly descriptor: Readonly<Record<string, unknown>>;
  /** Options for `agent`'s turn in the machine state `speaking`. */
  turnOptions(agent: string, speaking: string, state: SessionState): AgentTurnOptions;
  /**
   * The machine event for `agent`'s response in the machine state `speaking`. Throws when the
   * response breaks the topology.
   */
  routeResponse(
    agent: string,
    response: AgentResponse,
    state: SessionState,
    speaking: string,
  ): ResponseRouting;
  /**
   * The machine event for user input arriving while the session waits or has stopped. Throws
   * (before anything is committed) when the input cannot be accepted.
   */
  routeUserInput(state: SessionState, messages: readonly AgentMessage[]): MachineEvent;
  /**
   * In a `group` state: who answers now, all at once (in the order their answers are recorded).
   * Reads only the state, so a resumed session picks the same group.
   */
  selectSpeakers?(state: SessionState): SpeakerGroup;
  /** In a `group` state: the machine event (and progress) for the answers of one step. */
  routeGroup?(answers: readonly GroupAnswer[], state: SessionState): ResponseRouting;
  /** The orchestration's progress once a task is accepted (`SessionState.progress`). */
  progressOnInput?(state: SessionState): unknown;
  /** In a `select` state: the next speaker's name. */
  selectSpeaker?(state: SessionState, signal: AbortSignal | undefined): Promise<SpeakerChoice>;
  /** A run without a task found the session waiting for input: throw if it cannot just wait. */
  checkWaiting?(state: SessionState): void;
}
