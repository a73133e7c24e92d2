import type { AnyStateMachine } from 'xstate';
import { z } from 'zod';

import type { AgentContext, AgentResponse, ChatAgent } from '../agents/chat-agent.js';
import type { Guardrail } from '../agents/guardrail.js';
import type { StateValue } from '../agents/conversation-state.js';
import type { AgentEvent, AgentMessage, ChatMessage } from '../messages/message.js';
import type { SessionState } from './state/session-state.js';
import type { StopRule } from './state/stop-rule.js';

/** What a state of a compiled machine means to the engine, read from the state node's `meta`. */
export type StateMeta =
  | { readonly kind: 'agent'; readonly agent: string; readonly router?: boolean }
  /** The session waits for the user; with `asks`, the agent's answer becomes a pending request. */
  | { readonly kind: 'input'; readonly asks?: boolean }
  /** The orchestration picks the next speaker (`selectSpeaker`), e.g. with a model. */
  | { readonly kind: 'select' }
  /**
   * Several participants answer at once: the orchestration names them (`selectSpeakers`), they
   * run concurrently on the same thread, and their answers are committed as one step. `drawing`
   * is what the steps walk, for drawings only (the devtools page): the engine never reads it.
   */
  | { readonly kind: 'group'; readonly drawing?: GroupDrawing }
  | { readonly kind: 'stopped' };

/**
 * The graph a group state walks (a `GraphBuilder` workflow), as plain data for a drawing: the
 * nodes with their activation, the edges with their condition (a string, or a predicate's name),
 * and the entry points a task starts at.
 */
export interface GroupDrawing {
  readonly nodes: readonly { readonly name: string; readonly activation: 'all' | 'any' }[];
  readonly edges: readonly {
    readonly source: string;
    readonly target: string;
    readonly when?: { readonly text: string } | { readonly predicate: string };
  }[];
  readonly entryPoints: readonly string[];
}

/**
 * An event of an orchestration's own machine (e.g. `next`, `reply.billing`). The engine sends it
 * where the orchestration says and never reads it. An event is its type alone: compiled machines
 * have no guards, so the type names the outcome and `(state, type) → next state` is a lookup.
 */
export interface OrchestrationEvent {
  readonly type: string;
}

/**
 * The events the engine sends on its own, to any machine: a selector chose an agent
 * (`selected.<agent>`), a selector gave the floor back to the user, stop, and resume at a state.
 */
export type EngineEvent =
  | { readonly type: `selected.${string}` }
  | { readonly type: 'user_asked' }
  | { readonly type: 'stop' }
  | { readonly type: `resume.${string}` };

/** Any event a compiled machine receives. */
export type MachineEvent = EngineEvent | OrchestrationEvent;

/** The event for a selector's choice of `agent`. */
export function selectedEvent(agent: string): EngineEvent {
  return { type: `selected.${agent}` };
}

/** The event that resumes a stopped session at machine state `state`. */
export function resumeEvent(state: string): EngineEvent {
  return { type: `resume.${state}` };
}

/** The progress of an orchestration that keeps none: always `null`. */
export const NO_PROGRESS: z.ZodType<null> = z.null();

/** How an orchestration reads an agent's response. */
export interface ResponseRouting {
  readonly event: OrchestrationEvent;
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

/** What the engine itself gives every turn; the orchestration may set the rest of the context. */
type EngineTurnFields = 'conversation' | 'newMessages' | 'signal' | 'sessionId' | 'emit' | 'state';

/** Extra fields an orchestration gives an agent for one turn (its own options of `AgentContext`). */
export type AgentTurnOptions = Partial<Omit<AgentContext, EngineTurnFields>> & {
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
  /**
   * What the orchestration's progress (`SessionState.progress`) may be, `null` (nothing yet)
   * included: the state validator refuses a saved or stored state whose progress does not fit, so
   * no state it accepts can break the next run. `NO_PROGRESS` for an orchestration that keeps none.
   */
  readonly progressSchema: z.ZodType;
  /**
   * The conversation state: its schema (none: any JSON object) and the value a new
   * session starts with. @default no schema, and `{}`
   */
  readonly state?: {
    readonly schema: z.ZodType | undefined;
    readonly initial: StateValue;
    /** The version of the state's shape (see `StateOption.version`). @default 1 */
    readonly version?: number;
    /** Makes an older version's state fit (see `StateOption.migrate`). */
    readonly migrate?: ((old: unknown, from: number) => unknown) | undefined;
  };
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
  routeUserInput(state: SessionState, messages: readonly AgentMessage[]): OrchestrationEvent;
  /**
   * In a `group` state: who answers now, all at once (in the order their answers are recorded).
   * Reads only the state, so a resumed session picks the same group.
   */
  selectSpeakers?(state: SessionState): SpeakerGroup;
  /**
   * In a `group` state: the machine event (and progress) for the answers of one step. `paused`
   * names the members whose turns are paused for approvals after this step (their answers are to
   * come): while any are, `selectSpeakers` must name exactly them, so that a decision continues
   * the paused turns and nobody else's.
   */
  routeGroup?(
    answers: readonly GroupAnswer[],
    state: SessionState,
    paused: readonly string[],
  ): ResponseRouting;
  /** The orchestration's progress once a task is accepted (`SessionState.progress`). */
  progressOnInput?(state: SessionState): unknown;
  /** In a `select` state: the next speaker's name. */
  selectSpeaker?(state: SessionState, signal: AbortSignal | undefined): Promise<SpeakerChoice>;
  /** A run without a task found the session waiting for input: throw if it cannot just wait. */
  checkWaiting?(state: SessionState): void;
}
