import type { AgentMessage } from '../../messages/message.js';
import type { StatePatchOp } from '../../agents/conversation-state.js';
import type { PendingRequest, SessionStatus } from './session-state.js';

/**
 * One step of a session, typed: what kind of step it is (what the step log shows) and what it does
 * to the state (its body). A run makes steps (`step-changes.ts`), `applyStep` (session-state.ts)
 * applies them — the one reducer — and a store keeps what a step changed (`CommittedStep.change`,
 * encoded by `compact-step.ts`), which a log replays through the same reducer.
 */
export type Step = StepKind & StepBody;

/** The kinds of step a run makes, each with the names its event carries. */
export type StepKind =
  /** A task or decisions given to the session (`user_input`). */
  | { readonly kind: 'input' }
  /** Agents answered, one or a group at once (`agent_response:<a>,<b>`). */
  | { readonly kind: 'answer'; readonly agents: readonly string[] }
  /** Agents' turns paused for approvals (`approval_request:<a>,<b>`). */
  | { readonly kind: 'pause'; readonly agents: readonly string[] }
  /** A paused agent ran its decided calls; its turn stays paused (`approval_progress:<a>`). */
  | { readonly kind: 'decided'; readonly agent: string }
  /**
   * An agent's batch of tool calls with a `"once"` call starts: the turn so far (its tool call
   * request last) is committed before they run (`tool_calls_started:<a>`).
   */
  | { readonly kind: 'started'; readonly agent: string }
  /** A selector gave the floor to the user, asked by `agent` (`user_asked:<a>`). */
  | { readonly kind: 'ask'; readonly agent: string }
  /**
   * A model call of `agent`'s turn was refused before it was made (a budget in money): the turn so
   * far is recorded, and the session stops or waits for a `"budget"` decision (`budget:<a>`).
   */
  | { readonly kind: 'budget'; readonly agent: string }
  /** An output guardrail tripped on an answer; the session stops (`guardrail:<name>`). */
  | { readonly kind: 'tripped'; readonly guardrail: string }
  /** The session stops: `maxTurns` reached (`stop`), or a group state found nobody due (`complete`). */
  | { readonly kind: 'stop'; readonly complete: boolean }
  /** A run was cancelled (`cancel`). */
  | { readonly kind: 'cancel' }
  /** A run without a task moved a stopped or cancelled session back to where it was (`resume`). */
  | { readonly kind: 'resume' }
  /** The application changed the conversation state (`state_update`). */
  | { readonly kind: 'state' };

/** The fields a step may replace whole (the thread only grows; bookmarks move per agent). */
export interface StepFields {
  readonly machineState?: string;
  readonly resumeState?: string | null;
  readonly status?: SessionStatus;
  readonly pendingRequest?: PendingRequest | null;
  readonly turn?: number;
  readonly termination?: unknown;
  /** The orchestration's new progress (see `SessionState.progress`). */
  readonly progress?: unknown;
  /**
   * Why the run stops, on the step that stops it (`status: "terminated"`): the result's
   * `stopReason`, kept in the log for any reader. The state does not keep it.
   */
  readonly stopReason?: string;
}

/** What a step does to the state; the reducer reads nothing else. Every part is optional. */
export interface StepBody extends StepFields {
  /** Messages appended to the thread, in order. */
  readonly append?: readonly AgentMessage[];
  /**
   * The agents that responded in this step: each bookmark moves to the end of the thread less
   * `unseen` messages (e.g. a follow-up prompt), and the last of them is the last speaker.
   */
  readonly responders?: readonly string[];
  readonly unseen?: number;
  /** Bookmarks moved to these thread positions: what a stored step records of the above. */
  readonly bookmarks?: readonly (readonly [agent: string, at: number])[];
  readonly lastSpeaker?: string | null;
  /**
   * The conversation state's changes as RFC 6902 operations, applied in order; a
   * stored record may hold anything here, which the reducer refuses by name.
   */
  readonly statePatch?: readonly StatePatchOp[];
  /**
   * Which tool calls made `statePatch`: per call, in order, how many of its operations are the
   * call's (they cover it whole). Absent for the application's update (`state_update`). An entry
   * whose first element is a number is an update of the application's made with the thread that
   * long (a stored state's migration, committed with the step after it loaded).
   */
  readonly stateCalls?: readonly (readonly [callId: string | number, count: number])[];
}

const EVENT_PREFIXES = {
  answer: 'agent_response:',
  pause: 'approval_request:',
  decided: 'approval_progress:',
  started: 'tool_calls_started:',
  ask: 'user_asked:',
  tripped: 'guardrail:',
  budget: 'budget:',
} as const;

/** The event the step log shows for a step of this kind. */
export function eventOf(step: StepKind): string {
  switch (step.kind) {
    case 'input':
      return 'user_input';
    case 'answer':
    case 'pause':
      return EVENT_PREFIXES[step.kind] + step.agents.join(',');
    case 'decided':
    case 'started':
    case 'ask':
    case 'budget':
      return EVENT_PREFIXES[step.kind] + step.agent;
    case 'tripped':
      return EVENT_PREFIXES.tripped + step.guardrail;
    case 'stop':
      return step.complete ? 'complete' : 'stop';
    case 'cancel':
    case 'resume':
      return step.kind;
    case 'state':
      return 'state_update';
  }
}

/** The kind of step a stored event stands for, or undefined when no step writes that event. */
export function kindOfEvent(event: string): StepKind | undefined {
  switch (event) {
    case 'user_input':
      return { kind: 'input' };
    case 'stop':
    case 'complete':
      return { kind: 'stop', complete: event === 'complete' };
    case 'cancel':
    case 'resume':
      return { kind: event };
    case 'state_update':
      return { kind: 'state' };
  }
  const colon = event.indexOf(':');
  if (colon < 0) return undefined;
  const name = event.slice(colon + 1);
  const agents = () => (name === '' ? [] : name.split(','));
  switch (event.slice(0, colon + 1)) {
    case EVENT_PREFIXES.answer:
      return { kind: 'answer', agents: agents() };
    case EVENT_PREFIXES.pause:
      return { kind: 'pause', agents: agents() };
    case EVENT_PREFIXES.decided:
      return { kind: 'decided', agent: name };
    case EVENT_PREFIXES.started:
      return { kind: 'started', agent: name };
    case EVENT_PREFIXES.ask:
      return { kind: 'ask', agent: name };
    case EVENT_PREFIXES.tripped:
      return { kind: 'tripped', guardrail: name };
    case EVENT_PREFIXES.budget:
      return { kind: 'budget', agent: name };
  }
  return undefined;
}
