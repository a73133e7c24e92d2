import type { AgentContext } from '../../agents/chat-agent.js';
import { ModelCallRefused } from '../../agents/model-call.js';
import type { AgentEvent } from '../../messages/message.js';
import type { SessionStop } from './session-stop.js';
import type { Step } from '../state/step.js';
import type {
  ModelCallPlan,
  ModelCallRefusal,
  SettledUsage,
} from '../../termination/model-call.js';

/**
 * How a session judges the model calls of its turns before they are made: the stop rule's
 * conditions that limit calls (a budget in money) and any limit the run was given (a tenant's
 * daily cap). The engine names no condition: it asks whatever the session has.
 */
export interface ModelGate {
  /** `null` lets the call go ahead (holding what it may cost); a refusal stops or asks. */
  admit(call: ModelCallPlan): ModelCallRefusal | null | Promise<ModelCallRefusal | null>;
  /** A call admitted has ended, having used `usage` (`null`: it failed). */
  settle(call: ModelCallPlan, usage: SettledUsage): void | Promise<void>;
  /** `conditionState` with the session's budgets raised by `amountUsd` (a granted request). */
  raise?(amountUsd: number, conditionState: unknown): unknown;
}

/**
 * The gate of a session's stop rule, holding the condition state as the run's model calls left it
 * (what they reserved and cost), newer than the committed one: every commit records it
 * (`pending`), and the next stop check starts from it (`take`).
 */
export class GatedSpend implements ModelGate {
  readonly #stops: SessionStop;
  readonly #committed: () => unknown;
  /** Undefined while no call has changed the committed state. */
  pending: { readonly state: unknown } | undefined;

  constructor(stops: SessionStop, committed: () => unknown) {
    this.#stops = stops;
    this.#committed = committed;
  }

  admit(call: ModelCallPlan): ModelCallRefusal | null {
    const verdict = this.#stops.admit(call, this.#current());
    this.pending = { state: verdict.state };
    return verdict.refusal;
  }

  settle(call: ModelCallPlan, usage: SettledUsage): void {
    this.pending = { state: this.#stops.settle(call, usage, this.#current()) };
  }

  raise(amountUsd: number, conditionState: unknown): unknown {
    return this.#stops.raise(amountUsd, conditionState).state;
  }

  /** `step`, recording the calls' condition state unless it records a (newer) one itself. */
  recorded(step: Step): Step {
    const pending = this.pending;
    return pending === undefined || step.termination !== undefined
      ? step
      : { ...step, termination: pending.state };
  }

  /** The state a check starts from (the calls', else `given`); the check's result replaces it. */
  take(given: unknown): unknown {
    const pending = this.pending;
    this.pending = undefined;
    return pending === undefined ? given : pending.state;
  }

  #current(): unknown {
    return this.pending === undefined ? this.#committed() : this.pending.state;
  }
}

/** Errors a gate threw (a model without a price): the turn passes them on as they are. */
const gateErrors = new WeakSet<object>();

/** True for an error a gate threw (see `withGate`). */
export function isGateError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && gateErrors.has(error);
}

function marked<T>(work: () => T | Promise<T>): T | Promise<T> {
  const mark = (error: unknown): never => {
    if (typeof error === 'object' && error !== null) gateErrors.add(error);
    throw error;
  };
  try {
    const answer = work();
    return answer instanceof Promise ? answer.catch(mark) : answer;
  } catch (error) {
    return mark(error);
  }
}

/** Gives a turn's context the gate's hooks. */
export function withGate(context: AgentContext, gate: ModelGate): void {
  context.admitModelCall = (call) => marked(() => gate.admit(call));
  context.settleModelCall = (call, usage) => marked(() => gate.settle(call, usage));
}

/**
 * An agent's turn ended by a refused model call, in machine state `speaking`; thrown out of the
 * turn and answered by the run (`refusedTurn`) with one step: a stop, or a `"budget"` request.
 */
export class RefusedTurn extends Error {
  override readonly name = 'RefusedTurn';
  readonly agent: string;
  readonly speaking: string;
  readonly refusal: ModelCallRefusal;
  /** What the turn did before the refused call and has not committed yet. */
  readonly innerMessages: readonly AgentEvent[];

  constructor(
    agent: string,
    speaking: string,
    refused: ModelCallRefused,
    committed: ReadonlySet<string> | undefined,
  ) {
    super(refused.message, { cause: refused });
    this.agent = agent;
    this.speaking = speaking;
    this.refusal = refused.refusal;
    const inner = refused.innerMessages;
    this.innerMessages =
      committed === undefined || committed.size === 0
        ? inner
        : inner.filter((m) => !committed.has(m.id));
  }
}

export { ModelCallRefused };
