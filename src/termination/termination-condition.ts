import { z } from 'zod';

import { ConfigError, TerminatedError } from '../errors.js';
import type { AgentMessage, StopMessage, Usage } from '../messages/message.js';
import { stopMessage } from '../messages/message-factories.js';
import { StopMessageSchema } from '../messages/message-schema.js';
import { firstIssue } from '../zod-issues.js';
import {
  admitAll,
  admitAny,
  priceByChildren,
  raiseChildren,
  settleChildren,
} from './combined-model-calls.js';
import type { ModelCallPlan, ModelCallRefusal, SettledUsage } from './model-call.js';
import type { TerminationConfig } from './termination-config-types.js';

/**
 * A rule that decides when a conversation stops. The engine calls `check()` with each delta (the
 * messages produced since the last call) and stops when it returns a `StopMessage`. Conditions are
 * stateful until `reset()`; combine them with `.or()` and `.and()`.
 *
 * Custom conditions subclass this and implement `terminated`, `check` and `reset`; to be used by
 * more than one session of a workflow, `clone()` too.
 *
 * @example
 * const stop = new MaxMessageTermination(10).or(new TextMentionTermination('APPROVE'));
 */
export abstract class TerminationCondition {
  /** True once the condition has fired, until `reset()`. */
  abstract get terminated(): boolean;

  /**
   * Feeds the messages produced since the last call; resolves to a `StopMessage` when the
   * condition fires, else `null`.
   * @throws TerminatedError (as a rejection) when the condition has already fired.
   */
  abstract check(messages: readonly AgentMessage[]): Promise<StopMessage | null>;

  /** Forgets everything seen, so the condition can be used for a new run. */
  abstract reset(): void;

  /** A condition that fires when this one or `other` fires. */
  or(other: TerminationCondition): TerminationCondition {
    return new OrTerminationCondition([this, other]);
  }

  /** A condition that fires once both this one and `other` have fired since reset. */
  and(other: TerminationCondition): TerminationCondition {
    return new AndTerminationCondition([this, other]);
  }

  /**
   * The condition as plain JSON, for `terminationFromJSON()`.
   * @throws ConfigError for a custom condition that does not override it.
   */
  toJSON(): TerminationConfig {
    throw new ConfigError(
      `${this.constructor.name} is a custom termination condition and has no JSON form. ` +
        'Override toJSON() in it, or keep it out of configurations you serialise.',
    );
  }

  /**
   * A fresh (reset) condition with this one's options and its own state. A workflow checks one
   * clone per session, so sessions never share counters or wait on each other, and the object it
   * was given is left alone.
   *
   * Built-ins rebuild themselves from their options (`FunctionalTermination` shares its function,
   * `TimeoutTermination` its clock; an `ExternalTermination` clone still obeys this object's
   * `set()`). A custom condition implements it, typically `return new MyCondition(this.limit)`;
   * without it, a workflow uses the object itself for one session only (see `withoutClone()`).
   * @throws ConfigError when the class does not implement `clone()`.
   */
  clone(): TerminationCondition {
    const name = this.constructor.name;
    throw new ConfigError(
      `${name} has no clone(). Implement clone() in ${name} (return a new instance with the ` +
        'same options) to give each session its own.',
    );
  }

  /** The condition's counters and flags as JSON, for checkpoints; `null` for stateless ones. */
  saveState(): unknown {
    return null;
  }

  /** Restores what `saveState()` returned. */
  loadState(_state: unknown): void {}

  /** True when the condition judges model calls before they are made, as a budget does. */
  get limitsModelCalls(): boolean {
    return false;
  }

  /**
   * Asked by the engine before each model call of the session. `null` lets the call go ahead
   * (the condition may hold what it could cost until `settleModelCall`); a refusal means the call
   * is not made, and the session stops (or, with `ask`, waits for a `"budget"` decision).
   * @throws ConfigError when the condition cannot judge the call (e.g. a model without a price).
   */
  admitModelCall(_call: ModelCallPlan): ModelCallRefusal | null {
    return null;
  }

  /**
   * A model call has ended: `usage` is what it used (`null` when it failed). Called for every
   * call the session made, including calls this condition alone would have refused.
   */
  settleModelCall(_call: ModelCallPlan, _usage: SettledUsage): void {}

  /**
   * What `call` costs by this condition's prices in US dollars: at most, or with `usage` what it
   * used; undefined when it prices no calls. A tenant's daily cap prices calls with it.
   */
  priceModelCall(_call: ModelCallPlan, _usage?: Usage): number | undefined {
    return undefined;
  }

  /** Raises the limit by `amountUsd` (a granted `"budget"` request); false when it has none. */
  raiseBudget(_amountUsd: number): boolean {
    return false;
  }

  /** Rejects the current `check()` when the condition has already fired. */
  protected assertNotTerminated(): void {
    if (this.terminated) throw new TerminatedError();
  }

  /** A `StopMessage` from `source` (the condition's class name) saying `content`. */
  protected stop(source: string, content: string): StopMessage {
    return stopMessage({ source, content });
  }
}

/**
 * The first condition in `condition` (itself, or for the And/Or combinators a child at any depth)
 * whose class does not implement `clone()`; `undefined` when `condition.clone()` makes a copy. No
 * field is read: only which `clone()` each class has.
 */
export function withoutClone(condition: TerminationCondition): TerminationCondition | undefined {
  if (condition instanceof OrTerminationCondition || condition instanceof AndTerminationCondition) {
    for (const child of condition.conditions) {
      const found = withoutClone(child);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  return condition.clone === TerminationCondition.prototype.clone ? condition : undefined;
}

/** Validates `state` for `owner.loadState()`; a bad state is a `ConfigError` naming the field. */
export function parseState<T>(owner: string, schema: z.ZodType<T>, state: unknown): T {
  const parsed = schema.safeParse(state);
  if (parsed.success) return parsed.data;
  const issue = firstIssue(parsed.error);
  throw new ConfigError(
    `${owner}.loadState(): the state is invalid at ${issue.text}. ` +
      `Pass a value returned by ${owner}.saveState().`,
    { path: issue.path },
  );
}

function checkChildren(owner: string, conditions: readonly TerminationCondition[]): void {
  if (!Array.isArray(conditions) || conditions.length === 0) {
    throw new ConfigError(`${owner} needs at least one condition, got ${String(conditions)}.`);
  }
  conditions.forEach((c, i) => {
    if (!(c instanceof TerminationCondition)) {
      throw new ConfigError(
        `${owner}: conditions[${i}] is not a TerminationCondition. Pass condition objects ` +
          '(e.g. new MaxMessageTermination(10)), or build them from JSON with terminationFromJSON().',
        { path: `conditions[${i}]` },
      );
    }
  });
}

function joinStops(source: string[], content: string[]): StopMessage {
  return stopMessage({ source: source.join(', '), content: content.join(', ') });
}

const childStatesSchema = z.object({ conditions: z.array(z.unknown()) });

function loadChildren(
  owner: string,
  conditions: readonly TerminationCondition[],
  states: unknown[],
): void {
  if (states.length !== conditions.length) {
    throw new ConfigError(
      `${owner}.loadState(): the state has ${states.length} child states but the condition has ` +
        `${conditions.length} children. Pass a state saved from a condition of the same shape.`,
      { path: 'conditions' },
    );
  }
  conditions.forEach((c, i) => {
    c.loadState(states[i]);
  });
}

/** What Or and And share: their children, and the model calls judged through them. */
abstract class CombinedCondition extends TerminationCondition {
  abstract readonly conditions: readonly TerminationCondition[];

  override get limitsModelCalls(): boolean {
    return this.conditions.some((c) => c.limitsModelCalls);
  }

  override settleModelCall(call: ModelCallPlan, usage: SettledUsage): void {
    settleChildren(this.conditions, call, usage);
  }

  override raiseBudget(amountUsd: number): boolean {
    return raiseChildren(this.conditions, amountUsd);
  }

  override priceModelCall(call: ModelCallPlan, usage?: Usage): number | undefined {
    return priceByChildren(this.conditions, call, usage);
  }
}

/**
 * Fires when any child fires. Every child sees every delta, so counters stay current; the
 * `StopMessage` joins the firing children's contents and sources with `", "` in child order.
 */
export class OrTerminationCondition extends CombinedCondition {
  readonly conditions: readonly TerminationCondition[];

  constructor(conditions: readonly TerminationCondition[]) {
    super();
    checkChildren('OrTerminationCondition', conditions);
    this.conditions = [...conditions];
  }

  get terminated(): boolean {
    return this.conditions.some((c) => c.terminated);
  }

  async check(messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.assertNotTerminated();
    const results = await Promise.all(this.conditions.map((c) => c.check(messages)));
    const fired = results.filter((r): r is StopMessage => r !== null);
    if (fired.length === 0) return null;
    return joinStops(
      fired.map((s) => s.source),
      fired.map((s) => s.content),
    );
  }

  reset(): void {
    for (const c of this.conditions) c.reset();
  }

  override clone(): TerminationCondition {
    return new OrTerminationCondition(this.conditions.map((c) => c.clone()));
  }

  /** Refused when any child refuses; the children that let the call through release it then. */
  override admitModelCall(call: ModelCallPlan): ModelCallRefusal | null {
    return admitAny(this.conditions, call);
  }

  override toJSON(): TerminationConfig {
    return { type: 'OrTerminationCondition', conditions: this.conditions.map((c) => c.toJSON()) };
  }

  override saveState(): unknown {
    return { conditions: this.conditions.map((c) => c.saveState()) };
  }

  override loadState(state: unknown): void {
    const parsed = parseState('OrTerminationCondition', childStatesSchema, state);
    loadChildren('OrTerminationCondition', this.conditions, parsed.conditions);
  }
}

const andStateSchema = z.object({
  conditions: z.array(z.unknown()),
  stopMessages: z.array(StopMessageSchema),
});

/**
 * Fires once every child has fired at some point since reset, not necessarily on the same delta.
 * A child that has fired is not called again; the `StopMessage` joins the children's contents and
 * sources with `", "` in the order they fired.
 */
export class AndTerminationCondition extends CombinedCondition {
  readonly conditions: readonly TerminationCondition[];
  #stops: StopMessage[] = [];

  constructor(conditions: readonly TerminationCondition[]) {
    super();
    checkChildren('AndTerminationCondition', conditions);
    this.conditions = [...conditions];
  }

  get terminated(): boolean {
    return this.conditions.every((c) => c.terminated);
  }

  async check(messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.assertNotTerminated();
    const pending = this.conditions.filter((c) => !c.terminated);
    const results = await Promise.all(pending.map((c) => c.check(messages)));
    for (const r of results) if (r !== null) this.#stops.push(r);
    if (!this.terminated) return null;
    return joinStops(
      this.#stops.map((s) => s.source),
      this.#stops.map((s) => s.content),
    );
  }

  reset(): void {
    for (const c of this.conditions) c.reset();
    this.#stops = [];
  }

  override clone(): TerminationCondition {
    return new AndTerminationCondition(this.conditions.map((c) => c.clone()));
  }

  /**
   * Refused only when every child has fired or refuses (the And would fire); otherwise the call
   * goes ahead, and the children that would have refused it still count what it costs.
   */
  override admitModelCall(call: ModelCallPlan): ModelCallRefusal | null {
    return admitAll(this.conditions, call, this.#stops);
  }

  override toJSON(): TerminationConfig {
    return { type: 'AndTerminationCondition', conditions: this.conditions.map((c) => c.toJSON()) };
  }

  override saveState(): unknown {
    return {
      conditions: this.conditions.map((c) => c.saveState()),
      stopMessages: this.#stops.map((s) => structuredClone(s)),
    };
  }

  override loadState(state: unknown): void {
    const parsed = parseState('AndTerminationCondition', andStateSchema, state);
    loadChildren('AndTerminationCondition', this.conditions, parsed.conditions);
    this.#stops = parsed.stopMessages;
  }
}
