import { setMaxListeners } from 'node:events';

import type {
  AgentContext,
  AgentPause,
  AgentResponse,
  ChatAgent,
} from '../../agents/chat-agent.js';
import type { AgentEvent, AgentMessage, ChatMessage } from '../../messages/message.js';
import { isChatMessage } from '../../messages/message.js';
import { carryThread } from '../../messages/thread.js';
import { redactSecrets } from '../../redact.js';
import { traceAgentTurn } from '../../observability/gen-ai-spans.js';
import { untilAborted } from '../../until-aborted.js';
import { thrownText } from '../../value-text.js';
import type { MachineDriver } from './machine-driver.js';
import type { TurnState } from '../../agents/turn-state.js';
import type { StateValue } from '../../agents/conversation-state.js';
import {
  type AgentTurnOptions,
  type Orchestration,
  resumeEvent,
  selectedEvent,
} from '../orchestration.js';
import type { SessionState } from '../state/session-state.js';
import { threadOf } from '../state/state-thread.js';
import type { Step } from '../state/step.js';
import {
  isGateError,
  type ModelGate,
  ModelCallRefused,
  RefusedTurn,
  withGate,
} from './model-gate.js';

/** Thrown inside a run when the signal aborts it; turned into a `cancelled` result. */
export class RunCancelled extends Error {
  override readonly name = 'RunCancelled';
}

/** What an agent turn needs: the workflow, its machine and the session it runs in. */
export interface TurnContext {
  readonly orchestration: Orchestration;
  readonly driver: MachineDriver;
  readonly id: string;
  /** The conversation state of a turn starting now. */
  turnState?(): TurnState;
  /** The conversation state as the turns since the last commit left it. */
  turnData?(): StateValue;
  /** What judges the model calls of a turn before they are made; undefined when nothing does. */
  modelGate?(): ModelGate | undefined;
}

/**
 * Who goes next: an agent's state (with the selector's event, if it should be seen), or, when a
 * selector finds nobody, the input state to wait in and the request `agent` makes of the user.
 */
export type SpeakerTurn =
  | { readonly speaking: string; readonly agent: string; readonly selection?: AgentEvent }
  | { readonly waiting: string; readonly agent: string; readonly prompt: string };

/** The state of the agent who speaks next: the current state, or the one a selector picks. */
export async function chooseSpeaker(
  ctx: TurnContext,
  state: SessionState,
  signal: AbortSignal | undefined,
): Promise<SpeakerTurn> {
  const { driver, orchestration } = ctx;
  const here = driver.meta(state.machineState);
  if (here.kind === 'agent') return { speaking: state.machineState, agent: here.agent };
  const select = orchestration.selectSpeaker;
  if (select === undefined) {
    throw new Error(`Workflow "${orchestration.name}" has a select state but no selectSpeaker().`);
  }
  let choice: Awaited<ReturnType<typeof select>>;
  try {
    choice = await untilAborted(select(state, signal), signal);
  } catch (error) {
    if (signal?.aborted) throw new RunCancelled();
    throw error;
  }
  if (signal?.aborted) throw new RunCancelled();
  if (typeof choice !== 'string' && 'askUser' in choice) {
    const waiting = driver.next(state.machineState, { type: 'user_asked' });
    if (driver.meta(waiting).kind !== 'input') {
      throw new Error(
        `Workflow "${orchestration.name}" gave the floor back to the user from state ` +
          `"${state.machineState}", which has no way to the user.`,
      );
    }
    return { waiting, ...choice.askUser };
  }
  const chosen = typeof choice === 'string' ? choice : choice.agent;
  // Checked before the machine is asked, which would only say it has no such transition.
  const known = orchestration.participants.has(chosen);
  const speaking = known ? driver.next(state.machineState, selectedEvent(chosen)) : undefined;
  const meta = speaking === undefined ? undefined : driver.meta(speaking);
  if (speaking === undefined || meta?.kind !== 'agent') {
    throw new Error(
      `Workflow "${orchestration.name}" selected "${chosen}", which is not a participant.`,
    );
  }
  const { agent } = meta;
  return typeof choice === 'string'
    ? { speaking, agent }
    : { speaking, agent, selection: choice.event };
}

/** The state a run without a task starts from (an input state when only the user can go on). */
export function resumeWithoutTask(ctx: TurnContext, state: SessionState): string {
  const { driver, orchestration } = ctx;
  let current = state.machineState;
  if (driver.meta(current).kind === 'stopped') {
    current = driver.next(current, resumeEvent(state.resumeState ?? driver.initialState));
  }
  if (driver.meta(current).kind !== 'input') return current;
  // A fresh session started without a task: the first speaker begins.
  if (threadOf(state).length === 0 && state.pendingRequest === null) {
    return driver.next(current, orchestration.routeUserInput(state, []));
  }
  orchestration.checkWaiting?.(state);
  return current;
}

/**
 * One agent's response in the machine state `speaking`, with the orchestration's turn options; an
 * agent with `takeTurn()` may pause its turn for approvals instead.
 */
export async function respondAs(
  ctx: TurnContext,
  agentName: string,
  speaking: string,
  state: SessionState,
  signal: AbortSignal | undefined,
  emit: (event: AgentEvent) => void,
  starts?: TurnStarts,
): Promise<AgentResponse | AgentPause> {
  const sessionId = ctx.id;
  const agent = participant(ctx, agentName);
  const turn = ctx.orchestration.turnOptions(agentName, speaking, state);
  const conversationFrom = turn.conversationFrom ?? 0;
  // Own properties only: an agent may be named `toString` or `constructor`.
  const seen = Object.hasOwn(state.bookmarks, agentName) ? state.bookmarks[agentName] : 0;
  const bookmark = Math.max(seen ?? 0, conversationFrom);
  const thread = threadOf(state);
  const newMessages: ChatMessage[] = [];
  for (let i = bookmark; i < thread.length; i++) {
    const m = thread.at(i);
    if (m !== undefined && isChatMessage(m)) newMessages.push(m);
  }
  const context = {
    newMessages,
    signal: signal ?? quietSignal(),
    sessionId,
    emit,
    ...turnContext(turn),
    ...(ctx.turnState === undefined ? {} : { state: ctx.turnState() }),
  };
  // `conversation` reads as the thread's frozen view, made when an agent reads it (this library's
  // `Agent` reads the thread value the context carries instead, and copies nothing).
  carryThread(context, 'conversation', thread.since(conversationFrom));
  const committed = starts === undefined ? undefined : offerStarts(context, agentName, starts);
  const gate = ctx.modelGate?.();
  if (gate !== undefined) withGate(context, gate);
  let response: AgentResponse | AgentPause;
  try {
    response = await traceAgentTurn(agentName, sessionId, () =>
      untilAborted(
        agent.takeTurn === undefined ? agent.respond(context) : agent.takeTurn(context),
        signal,
      ),
    );
  } catch (error) {
    if (signal?.aborted) throw new RunCancelled();
    if (error instanceof ModelCallRefused) {
      throw new RefusedTurn(agentName, speaking, error, committed);
    }
    // A gate's own error (a model without a price) says what to fix: it is passed on as it is.
    if (isGateError(error)) throw error;
    const reason = redactSecrets(thrownText(error));
    throw new Error(`Agent "${agentName}" failed in session "${sessionId}": ${reason}`, {
      cause: error,
    });
  }
  if (signal?.aborted) throw new RunCancelled();
  if (committed !== undefined && committed.size > 0) response = withoutStarted(response, committed);
  if (
    response !== null &&
    typeof response === 'object' &&
    'approvalRequest' in response &&
    (response.approvalRequest?.type === 'ToolApprovalRequestEvent' ||
      response.approvalRequest?.type === 'ToolInDoubtEvent')
  ) {
    return response;
  }
  if (
    response === null ||
    typeof response !== 'object' ||
    !isChatMessage((response as AgentResponse).chatMessage)
  ) {
    throw new Error(
      `Agent "${agentName}" returned no chat message in session "${sessionId}". respond() must ` +
        'resolve to { chatMessage, innerMessages? } with a ChatMessage.',
    );
  }
  return response;
}

/**
 * The signal of turns whose run was given none. Making an AbortSignal costs more than the rest of
 * a turn's bookkeeping, so such turns share one, which never aborts. A listener added to it and
 * never removed (a model client may do that: openai's does) is released with it: each shared
 * signal serves `QUIET_USES` turns, then a fresh one takes over and the old one is garbage once
 * the turns holding it end.
 */
export function quietSignal(): AbortSignal {
  if (quietUses >= QUIET_USES || quiet === undefined) {
    quiet = new AbortController().signal;
    // The listeners such clients leave are expected here (and bounded by the renewal): no
    // "possible memory leak" warning for them.
    setMaxListeners(0, quiet);
    quietUses = 0;
  }
  quietUses++;
  return quiet;
}

const QUIET_USES = 256;
let quiet: AbortSignal | undefined;
let quietUses = 0;

/**
 * How a turn commits the start of its tool calls: `commit` records a step, `record`
 * keeps its messages for the run's result; `started` are the calls this run's decisions started.
 */
export interface TurnStarts {
  readonly commit: (step: Step) => Promise<void> | undefined;
  readonly record: (messages: readonly AgentMessage[]) => void;
  readonly started?: ReadonlySet<string> | undefined;
}

/** Gives the context `startCalls`; returns the ids of the messages the starts commit. */
function offerStarts(context: AgentContext, agent: string, starts: TurnStarts): Set<string> {
  const committed = new Set<string>();
  context.startCalls = async (events) => {
    const append = events.filter((m) => !committed.has(m.id));
    const committing = starts.commit({ kind: 'started', agent, append });
    if (committing !== undefined) await committing;
    for (const m of append) committed.add(m.id);
    starts.record(append);
  };
  if (starts.started !== undefined) context.startedCalls = starts.started;
  return committed;
}

/** The response without the messages a start committed already. */
function withoutStarted<R extends AgentResponse | AgentPause>(
  response: R,
  committed: Set<string>,
): R {
  if (response === null || typeof response !== 'object' || response.innerMessages === undefined) {
    return response;
  }
  const inner = response.innerMessages;
  const rest = { ...response, innerMessages: inner.filter((m) => !committed.has(m.id)) };
  startedOf.set(
    rest,
    inner.filter((m) => committed.has(m.id)),
  );
  return rest;
}

/** Per response: the messages of the turn its starts committed (see `withStarted`). */
const startedOf = new WeakMap<object, readonly AgentMessage[]>();

/**
 * `delta` (what an answer step appends) with, first, what the answer's starts committed: the
 * answer's messages as a stop rule sees them, whatever was committed before.
 */
export function withStarted(response: object, delta: AgentMessage[]): AgentMessage[] {
  const started = startedOf.get(response);
  return started === undefined ? delta : [...started, ...delta];
}

/** The turn options an agent's context carries (all but where its conversation starts). */
function turnContext(turn: AgentTurnOptions): Omit<AgentTurnOptions, 'conversationFrom'> {
  if (turn.conversationFrom === undefined) return turn;
  const { conversationFrom: _from, ...rest } = turn;
  return rest;
}

function participant(ctx: TurnContext, name: string): ChatAgent {
  const agent = ctx.orchestration.participants.get(name);
  if (agent === undefined) {
    throw new Error(
      `Session "${ctx.id}" expects participant "${name}", which this workflow lacks.`,
    );
  }
  return agent;
}
