import { ConfigError } from '../../errors.js';
import { isRecord } from '../../unknown-value.js';
import type { Usage } from '../../messages/message.js';
import type {
  ModelCallPlan,
  ModelCallRefusal,
  SettledUsage,
} from '../../termination/model-call.js';
import type { RunOptions } from '../runnable.js';
import type { ModelGate } from './model-gate.js';

/**
 * Internal, not part of the public API: a `RunOptions` key carrying a limit on the run's model calls
 * beyond the session's own conditions (a tenant's daily cap). The session's conditions
 * price the calls; the limit holds each call's largest cost while it runs.
 */
export const LIMIT_CALLS = Symbol.for('baton.limitCalls');

/** A limit of a run's model calls in US dollars (see `LIMIT_CALLS`). */
export interface CallLimit {
  /** Takes `reserveUsd` (the call's largest cost) from the limit, or refuses the call. */
  admit(call: ModelCallPlan, reserveUsd: number): Promise<ModelCallRefusal | null>;
  /** The call has ended: `reserveUsd` goes back and `costUsd` (what it cost) is taken. */
  settle(call: ModelCallPlan, reserveUsd: number, costUsd: number): Promise<void>;
  /** A granted `"budget"` request raises the limit by `amountUsd`. */
  raise(amountUsd: number): Promise<void>;
}

/** The run's limit, when its options carry one. */
export function callLimitOf(options: RunOptions): CallLimit | undefined {
  const limit: unknown = Reflect.get(options, LIMIT_CALLS);
  return isCallLimit(limit) ? limit : undefined;
}

function isCallLimit(value: unknown): value is CallLimit {
  return (
    isRecord(value) &&
    typeof value.admit === 'function' &&
    typeof value.settle === 'function' &&
    typeof value.raise === 'function'
  );
}

/** Prices a call at most, or with `usage` at what it used; undefined with no prices. */
export type CallPricer = (call: ModelCallPlan, usage?: Usage) => number | undefined;

/**
 * The session's own gate (its conditions, if they judge calls) and a run's limit as one: a call
 * goes ahead when both let it; the limit's refusal releases what the conditions held.
 */
export class LimitedGate implements ModelGate {
  readonly #own: ModelGate | undefined;
  readonly #limit: CallLimit;
  readonly #price: CallPricer;
  readonly #held = new Map<ModelCallPlan, number>();

  constructor(own: ModelGate | undefined, limit: CallLimit, price: CallPricer) {
    this.#own = own;
    this.#limit = limit;
    this.#price = price;
  }

  async admit(call: ModelCallPlan): Promise<ModelCallRefusal | null> {
    const own = await this.#own?.admit(call);
    if (own !== null && own !== undefined) return own;
    try {
      const reserve = this.#priced(call);
      const refusal = await this.#limit.admit(call, reserve);
      if (refusal === null) this.#held.set(call, reserve);
      else await this.#own?.settle(call, null);
      return refusal;
    } catch (error) {
      await this.#own?.settle(call, null);
      throw error;
    }
  }

  async settle(call: ModelCallPlan, usage: SettledUsage): Promise<void> {
    await this.#own?.settle(call, usage);
    const reserve = this.#held.get(call);
    if (reserve === undefined) return;
    this.#held.delete(call);
    await this.#limit.settle(call, reserve, usage === null ? 0 : this.#priced(call, usage));
  }

  async raise(amountUsd: number, conditionState: unknown): Promise<unknown> {
    const state =
      this.#own?.raise === undefined
        ? conditionState
        : await this.#own.raise(amountUsd, conditionState);
    await this.#limit.raise(amountUsd);
    return state;
  }

  #priced(call: ModelCallPlan, usage?: Usage): number {
    const price = this.#price(call, usage);
    if (price !== undefined) return price;
    throw new ConfigError(
      `A daily budget in money limits this run, but nothing prices the model calls of session ` +
        `agent "${call.agent}". Give the workflow a CostTermination with the models' prices ` +
        '(e.g. withTerminationCondition(new CostTermination({ maxUsd, prices }))).',
      { path: 'budgets' },
    );
  }
}
