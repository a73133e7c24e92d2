import { ConfigError } from '../../errors.js';
import type { AgentMessage, StopMessage, Usage } from '../../messages/message.js';
import { stopMessage } from '../../messages/message-factories.js';
import type {
  ModelCallPlan,
  ModelCallRefusal,
  SettledUsage,
} from '../../termination/model-call.js';
import { TerminationCondition, withoutClone } from '../../termination/termination-condition.js';
import { copySavedState } from './saved-state-copy.js';

/** A predicate over the whole thread, checked after each delta. */
export type ThreadPredicate = (conversation: readonly AgentMessage[]) => boolean | Promise<boolean>;

/**
 * The argument of a builder's `withTerminationCondition()`, checked.
 * @throws ConfigError when it is neither a TerminationCondition nor a function.
 */
export function checkStopCondition(
  condition: TerminationCondition | ThreadPredicate,
): TerminationCondition | ThreadPredicate {
  if (!(condition instanceof TerminationCondition) && typeof condition !== 'function') {
    throw new ConfigError(
      'withTerminationCondition() needs a TerminationCondition or a function (conversation) => boolean.',
      { path: 'terminationCondition' },
    );
  }
  return condition;
}

/** How one session decides to stop: its own condition instance, or the workflow's predicate. */
export interface SessionStopRule {
  /**
   * Checks one delta of the session whose saved condition state is `state`; `thread` gives the
   * whole thread including the delta (built only for rules that read it).
   */
  check(
    delta: readonly AgentMessage[],
    thread: () => readonly AgentMessage[],
    state: unknown,
  ): Promise<{ stop: StopMessage | null; state: unknown }>;
  /** The saved state of a reset condition. */
  resetState(state: unknown): unknown;
  /** True when the rule judges model calls before they are made (a budget in money). */
  readonly limitsModelCalls: boolean;
  /** The rule's verdict on a model call about to be made, and the condition state after it. */
  admit(call: ModelCallPlan, state: unknown): { refusal: ModelCallRefusal | null; state: unknown };
  /** The condition state once a call the rule admitted has ended, having used `usage`. */
  settle(call: ModelCallPlan, usage: SettledUsage, state: unknown): unknown;
  /** The condition state with its budget raised by `amountUsd`; `raised` false when it has none. */
  raise(amountUsd: number, state: unknown): { raised: boolean; state: unknown };
  /** What `call` costs at most (or used, with `usage`) by the conditions' prices, if they have any. */
  price(call: ModelCallPlan, usage?: Usage): number | undefined;
}

/**
 * When a workflow's sessions stop: a termination condition fed deltas, or a predicate over the
 * whole thread. Each session gets its own rule (`forSession()`), holding its own clone of the
 * condition, so no session ever waits on another and the user's condition object is never changed;
 * a condition without `clone()` is used itself, by one session only. Saved states are copied both
 * ways (`copySavedState`): the engine never freezes, nor keeps, an object a condition holds.
 */
export interface StopRule {
  /**
   * The rule of session `sessionId`.
   * @throws ConfigError for a condition without `clone()` that another session already holds.
   */
  forSession(sessionId: string): SessionStopRule;
  /** The saved state of a fresh session. */
  readonly initialState: unknown;
  /** What is wrong with a saved condition state, or null. */
  problemWith(state: unknown): string | null;
  /** What a call that used `usage` cost by the conditions' prices; undefined without prices. */
  price(call: ModelCallPlan, usage: Usage): number | undefined;
}

/** Builds the stop rule of a workflow from what `withTerminationCondition` received. */
export function toStopRule(rule: TerminationCondition | ThreadPredicate): StopRule {
  return rule instanceof TerminationCondition ? new ConditionRule(rule) : new PredicateRule(rule);
}

class PredicateRule implements StopRule, SessionStopRule {
  readonly initialState = null;
  readonly #predicate: ThreadPredicate;

  constructor(predicate: ThreadPredicate) {
    this.#predicate = predicate;
  }

  forSession(_sessionId: string): SessionStopRule {
    return this;
  }

  async check(_delta: readonly AgentMessage[], thread: () => readonly AgentMessage[]) {
    const fired = (await this.#predicate(thread())) === true;
    const stop = fired
      ? stopMessage({
          source: 'FunctionalTermination',
          content: 'Functional termination condition met',
        })
      : null;
    return { stop, state: null };
  }

  resetState(): unknown {
    return null;
  }

  readonly limitsModelCalls = false;

  admit(_call: ModelCallPlan, state: unknown) {
    return { refusal: null, state };
  }

  settle(_call: ModelCallPlan, _usage: SettledUsage, state: unknown): unknown {
    return state;
  }

  raise(_amountUsd: number, state: unknown) {
    return { raised: false, state };
  }

  price(): undefined {
    return undefined;
  }

  problemWith(): string | null {
    return null;
  }
}

/**
 * Which session holds each condition a workflow uses itself (one without `clone()`), whatever
 * workflow it was given to: a second session is refused, never handed the same object.
 */
const holders = new WeakMap<TerminationCondition, { rule: ConditionRule; sessionId: string }>();

class ConditionRule implements StopRule {
  readonly initialState: unknown;
  readonly #condition: TerminationCondition;
  /**
   * The class that lacks `clone()` (the condition's, or a child's), if any: then the condition is
   * not copied, and its one session uses the object itself.
   */
  readonly #uncloned: string | undefined;
  /** A clone used only to validate stored states (the condition itself when it has no clone). */
  readonly #scratch: TerminationCondition;

  constructor(condition: TerminationCondition) {
    this.#condition = condition;
    this.#uncloned = withoutClone(condition)?.constructor.name;
    if (this.#uncloned === undefined) {
      this.#scratch = condition.clone();
    } else {
      condition.reset();
      this.#scratch = condition;
    }
    this.initialState = copySavedState(this.#scratch.saveState());
  }

  forSession(sessionId: string): SessionStopRule {
    const name = this.#uncloned;
    if (name === undefined) return new SessionCondition(this.#condition.clone(), this.initialState);
    const condition = this.#condition;
    const holder = holders.get(condition);
    if (holder === undefined) {
      holders.set(condition, { rule: this, sessionId });
    } else if (holder.rule !== this || holder.sessionId !== sessionId) {
      const of = holder.rule === this ? '' : ' of another workflow';
      throw new ConfigError(
        `${name} has no clone(), so a workflow can use it for one session only, and session ` +
          `"${holder.sessionId}"${of} has it. Implement clone() in ${name} (return a new instance ` +
          'with the same options) to give each session its own.',
        { path: 'terminationCondition' },
      );
    }
    // The object may hold any state (its session's runtime may have been unloaded): load first.
    return new SessionCondition(condition, undefined);
  }

  price(call: ModelCallPlan, usage: Usage): number | undefined {
    // Prices are options, not state: any copy of the condition answers alike.
    return this.#scratch.priceModelCall(call, usage);
  }

  problemWith(state: unknown): string | null {
    const condition = this.#scratch;
    // A condition without clone() may be its session's instance: its state is put back after.
    const copies = this.#uncloned === undefined;
    const live = copies ? undefined : condition.saveState();
    try {
      condition.loadState(copySavedState(state));
      return null;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return (
        `its termination-condition state does not fit this workflow's condition (${reason}); ` +
        'if the condition was changed, resume with the condition that wrote it'
      );
    } finally {
      if (copies) condition.reset();
      else condition.loadState(live);
    }
  }
}

/** One session's own condition instance, with the saved state it holds right now. */
class SessionCondition implements SessionStopRule {
  readonly #condition: TerminationCondition;
  /** The saved state the instance holds (skips a reload when the session's state is unchanged). */
  #loaded: unknown;

  constructor(condition: TerminationCondition, initialState: unknown) {
    this.#condition = condition;
    this.#loaded = initialState;
  }

  async check(
    delta: readonly AgentMessage[],
    _thread: () => readonly AgentMessage[],
    state: unknown,
  ) {
    this.#load(state);
    try {
      const stop = await this.#condition.check(delta);
      return { stop, state: this.#save() };
    } catch (error) {
      // The instance may be half-updated: reload from the session's state next time.
      this.#loaded = undefined;
      throw error;
    }
  }

  resetState(state: unknown): unknown {
    this.#load(state);
    this.#condition.reset();
    return this.#save();
  }

  get limitsModelCalls(): boolean {
    return this.#condition.limitsModelCalls;
  }

  admit(call: ModelCallPlan, state: unknown) {
    this.#load(state);
    try {
      const refusal = this.#condition.admitModelCall(call);
      return { refusal, state: this.#save() };
    } catch (error) {
      // As in `check`: the instance may be half-updated, so the next use reloads it.
      this.#loaded = undefined;
      throw error;
    }
  }

  settle(call: ModelCallPlan, usage: SettledUsage, state: unknown): unknown {
    this.#load(state);
    this.#condition.settleModelCall(call, usage);
    return this.#save();
  }

  raise(amountUsd: number, state: unknown) {
    this.#load(state);
    const raised = this.#condition.raiseBudget(amountUsd);
    return { raised, state: this.#save() };
  }

  price(call: ModelCallPlan, usage?: Usage): number | undefined {
    return this.#condition.priceModelCall(call, usage);
  }

  /** Loads the session's state into the instance, as a copy: the session's own is frozen. */
  #load(state: unknown): void {
    if (state === this.#loaded) return;
    this.#condition.loadState(copySavedState(state));
    this.#loaded = state;
  }

  /** The instance's state, as a copy the session can freeze (the instance may change its own). */
  #save(): unknown {
    this.#loaded = copySavedState(this.#condition.saveState());
    return this.#loaded;
  }
}
