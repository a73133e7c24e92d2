import { z } from 'zod';

import { ConfigError } from '../errors.js';
import type { AgentMessage, StopMessage, Usage } from '../messages/message.js';
import {
  checkPrices,
  costAt,
  formatUsd,
  type ModelPrices,
  type PriceFunction,
  priceOf,
} from './cost-prices.js';
import type { ModelCallPlan, ModelCallRefusal, SettledUsage } from './model-call.js';
import { parseState, TerminationCondition } from './termination-condition.js';
import type { TerminationConfig } from './termination-config-types.js';
import { requireCount, showValue } from './validate-options.js';

/** Options of `CostTermination`: a budget and how to price a call (`prices` or `price`). */
export interface CostTerminationOptions {
  /** The session's budget in US dollars (a positive number). */
  maxUsd: number;
  /** Prices per million input and output tokens, by model; `"*"` for any other model. */
  prices?: ModelPrices;
  /** Prices a call instead of `prices`: its cost in US dollars (not serialisable). */
  price?: PriceFunction;
  /**
   * What happens when a call would pass the budget: `"stop"` ends the run, `"ask"` pauses the
   * session with a `"budget"` request, which a decision granting an amount answers.
   * @default 'stop'
   */
  onExhausted?: 'stop' | 'ask';
  /**
   * The answer tokens reserved for a call whose client does not say its own
   * `maxCompletionTokens`. @default 4096
   */
  reserveOutputTokens?: number;
}

const DEFAULT_RESERVE = 4096;

/** How much a sum of dollars may pass a limit by rounding alone (a billionth of a dollar). */
const ROUNDING = 1e-9;

const costStateSchema = z.object({
  spentUsd: z.number().nonnegative(),
  grantedUsd: z.number().nonnegative(),
});

/**
 * A budget in money for a session. Before each model call the engine asks the condition to
 * reserve the call's largest possible cost: its prompt tokens plus the answer's limit
 * (`reserveOutputTokens`, or the client's `maxCompletionTokens`) at the model's prices. The call
 * is made only while what was spent plus that reservation stays within the budget; otherwise the
 * session stops before it (`Cost budget of $0.50 reached`), or with `onExhausted: "ask"` waits
 * for a `"budget"` decision that raises the budget. After the call its real cost is counted.
 *
 * The spend is part of the session's saved state, so it survives pauses, restarts and moves to
 * other processes. A stop resets the condition but not its spend: money spent stays spent, and a
 * session at its budget stops again before its next call. It never fires on a delta.
 *
 * @example
 * new CostTermination({
 *   maxUsd: 0.5,
 *   prices: { 'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 } },
 * })
 * @throws ConfigError when `maxUsd` is not a positive number, when neither (or both) of `prices`
 *   and `price` is given, or an option is malformed; at a call, for a model without a price.
 */
export class CostTermination extends TerminationCondition {
  readonly maxUsd: number;
  readonly prices: ModelPrices | undefined;
  readonly price: PriceFunction | undefined;
  readonly onExhausted: 'stop' | 'ask';
  readonly reserveOutputTokens: number | undefined;
  #spent = 0;
  #granted = 0;
  #reserved = 0;
  /** The calls admitted and not settled yet, with what each holds. */
  readonly #holding = new Map<ModelCallPlan, number>();

  constructor(options: CostTerminationOptions) {
    super();
    const owner = 'CostTermination';
    const max: unknown = options?.maxUsd;
    if (typeof max !== 'number' || !Number.isFinite(max) || max <= 0) {
      throw new ConfigError(
        `${owner} needs \`maxUsd\` to be a positive number of US dollars, got ${showValue(max)}.`,
        { path: 'maxUsd' },
      );
    }
    this.maxUsd = max;
    const { prices, price } = options;
    if (prices === undefined && price === undefined) {
      throw new ConfigError(
        `${owner} needs \`prices\` (per million input and output tokens, by model) or a ` +
          '`price` function (usage, model) => dollars.',
        { path: 'prices' },
      );
    }
    if (prices !== undefined && price !== undefined) {
      throw new ConfigError(`${owner} takes \`prices\` or \`price\`, not both. Give one.`, {
        path: 'price',
      });
    }
    if (price !== undefined && typeof price !== 'function') {
      throw new ConfigError(
        `${owner} needs \`price\` to be a function (usage, model) => dollars, got ${showValue(price)}.`,
        { path: 'price' },
      );
    }
    this.prices = prices === undefined ? undefined : checkPrices(owner, prices);
    this.price = price;
    const mode: unknown = options.onExhausted ?? 'stop';
    if (mode !== 'stop' && mode !== 'ask') {
      throw new ConfigError(
        `${owner} needs \`onExhausted\` to be "stop" or "ask", got ${showValue(mode)}.`,
        { path: 'onExhausted' },
      );
    }
    this.onExhausted = mode;
    const reserve = options.reserveOutputTokens;
    this.reserveOutputTokens =
      reserve === undefined ? undefined : requireCount(owner, 'reserveOutputTokens', reserve);
  }

  /** The budget now: `maxUsd` plus what `"budget"` decisions granted. */
  get limitUsd(): number {
    return this.maxUsd + this.#granted;
  }

  /** What the session's model calls have cost so far, in US dollars. */
  get spentUsd(): number {
    return this.#spent;
  }

  /** Always false: the condition stops a run by refusing a call, not by firing on a delta. */
  get terminated(): boolean {
    return false;
  }

  override get limitsModelCalls(): boolean {
    return true;
  }

  /**
   * Never fires on messages: the budget acts before each model call (`admitModelCall`), so the
   * run stops, or asks, before the call that could pass it rather than after.
   */
  async check(_messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.assertNotTerminated();
    return null;
  }

  /** Forgets the calls in flight; the spend and the budgets granted are kept (money spent stays spent). */
  reset(): void {
    this.#reserved = 0;
    this.#holding.clear();
  }

  override priceModelCall(call: ModelCallPlan, usage?: Usage): number {
    if (usage !== undefined) return this.#cost(usage, call.model);
    const answer = call.maxCompletionTokens ?? this.reserveOutputTokens ?? DEFAULT_RESERVE;
    return this.#cost({ promptTokens: call.promptTokens, completionTokens: answer }, call.model);
  }

  override admitModelCall(call: ModelCallPlan): ModelCallRefusal | null {
    const reservation = this.priceModelCall(call);
    if (this.#spent + this.#reserved + reservation > this.limitUsd + ROUNDING) {
      return { stop: this.#stopMessage(), ask: this.onExhausted === 'ask' };
    }
    this.#reserved += reservation;
    this.#holding.set(call, reservation);
    return null;
  }

  override settleModelCall(call: ModelCallPlan, usage: SettledUsage): void {
    const held = this.#holding.get(call);
    if (held !== undefined) {
      this.#holding.delete(call);
      this.#reserved = Math.max(0, this.#reserved - held);
    }
    if (usage !== null) this.#spent += this.#cost(usage, call.model);
  }

  override raiseBudget(amountUsd: number): boolean {
    this.#granted += amountUsd;
    return true;
  }

  override clone(): CostTermination {
    return new CostTermination(this.#options());
  }

  /**
   * `{ type: "CostTermination", maxUsd, prices, onExhausted?, reserveOutputTokens? }`.
   * @throws ConfigError when the condition prices calls with a `price` function.
   */
  override toJSON(): TerminationConfig {
    if (this.prices === undefined) {
      throw new ConfigError(
        'CostTermination with a `price` function has no JSON form. Give `prices` (per million ' +
          'tokens, by model) to serialise it.',
        { path: 'price' },
      );
    }
    const config: TerminationConfig & { type: 'CostTermination' } = {
      type: 'CostTermination',
      maxUsd: this.maxUsd,
      prices: structuredClone(this.prices),
    };
    if (this.onExhausted === 'ask') config.onExhausted = 'ask';
    if (this.reserveOutputTokens !== undefined)
      config.reserveOutputTokens = this.reserveOutputTokens;
    return config;
  }

  override saveState(): unknown {
    return { spentUsd: this.#spent, grantedUsd: this.#granted };
  }

  override loadState(state: unknown): void {
    const parsed = parseState('CostTermination', costStateSchema, state);
    this.#spent = parsed.spentUsd;
    this.#granted = parsed.grantedUsd;
    this.#reserved = 0;
    this.#holding.clear();
  }

  #options(): CostTerminationOptions {
    const options: CostTerminationOptions = { maxUsd: this.maxUsd, onExhausted: this.onExhausted };
    if (this.prices !== undefined) options.prices = this.prices;
    if (this.price !== undefined) options.price = this.price;
    if (this.reserveOutputTokens !== undefined)
      options.reserveOutputTokens = this.reserveOutputTokens;
    return options;
  }

  #stopMessage(): StopMessage {
    return this.stop('CostTermination', `Cost budget of ${formatUsd(this.limitUsd)} reached`);
  }

  #cost(usage: Usage, model: string | undefined): number {
    const { prices, price } = this;
    if (prices !== undefined || price === undefined) {
      return costAt(priceOf('CostTermination', prices ?? {}, model), usage);
    }
    const cost: unknown = price(usage, model);
    if (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0) {
      throw new ConfigError(
        `CostTermination: \`price\` returned ${showValue(cost)} for model ` +
          `${model === undefined ? '(none)' : `"${model}"`}; it must return a non-negative ` +
          'number of US dollars.',
        { path: 'price' },
      );
    }
    return cost;
  }
}
