import { ConfigError } from '../../errors.js';
import type { AgentMessage, StopMessage } from '../../messages/message.js';
import { stopMessage } from '../../messages/message-factories.js';
import { TerminationCondition } from '../../termination/termination-condition.js';

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
}

/**
 * When a workflow's sessions stop: a termination condition fed deltas, or a predicate over the
 * whole thread. Each session gets its own rule (`forSession()`), holding its own clone of the
 * condition, so no session ever waits on another and the user's condition object is never changed.
 */
export interface StopRule {
  /** A rule for one session. */
  forSession(): SessionStopRule;
  /** The saved state of a fresh session. */
  readonly initialState: unknown;
  /** What is wrong with a saved condition state, or null. */
  problemWith(state: unknown): string | null;
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

  forSession(): SessionStopRule {
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

  problemWith(): string | null {
    return null;
  }
}

class ConditionRule implements StopRule {
  readonly initialState: unknown;
  readonly #condition: TerminationCondition;
  /** A clone used only to validate stored states (synchronously, so nothing interleaves). */
  readonly #scratch: TerminationCondition;
  /** Set when the condition cannot be cloned (see `TerminationCondition.clone()`). */
  readonly #shared: SharedCondition | undefined;

  constructor(condition: TerminationCondition) {
    this.#condition = condition;
    this.#scratch = condition.clone();
    if (this.#scratch === condition) {
      condition.reset();
      this.#shared = new SharedCondition(condition);
    }
    this.initialState = this.#scratch.saveState();
  }

  forSession(): SessionStopRule {
    return this.#shared ?? new SessionCondition(this.#condition.clone(), this.initialState);
  }

  problemWith(state: unknown): string | null {
    const condition = this.#scratch;
    const live = this.#shared === undefined ? undefined : condition.saveState();
    try {
      condition.loadState(state);
      return null;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return (
        `its termination-condition state does not fit this workflow's condition (${reason}); ` +
        'if the condition was changed, resume with the condition that wrote it'
      );
    } finally {
      if (this.#shared === undefined) condition.reset();
      else condition.loadState(live);
    }
  }
}

/**
 * A custom condition that cannot be cloned, shared by every session of its workflow: checks run
 * one at a time, each with its session's saved state swapped in. Only such conditions queue; a
 * condition with a `clone()` gives every session its own instance instead.
 */
class SharedCondition implements SessionStopRule {
  readonly #condition: TerminationCondition;
  #queue: Promise<unknown> = Promise.resolve();
  /** The saved state the object holds right now (skips a reload when unchanged). */
  #loaded: unknown;

  constructor(condition: TerminationCondition) {
    this.#condition = condition;
    this.#loaded = condition.saveState();
  }

  check(delta: readonly AgentMessage[], _thread: () => readonly AgentMessage[], state: unknown) {
    return this.#exclusive(async () => {
      this.#load(state);
      const stop = await this.#condition.check(delta);
      return { stop, state: this.#save() };
    });
  }

  resetState(state: unknown): Promise<unknown> {
    return this.#exclusive(async () => {
      this.#load(state);
      this.#condition.reset();
      return this.#save();
    });
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(work);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  #load(state: unknown): void {
    if (state !== this.#loaded) this.#condition.loadState(state);
  }

  #save(): unknown {
    this.#loaded = this.#condition.saveState();
    return this.#loaded;
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

  #load(state: unknown): void {
    if (state !== this.#loaded) this.#condition.loadState(state);
  }

  #save(): unknown {
    this.#loaded = this.#condition.saveState();
    return this.#loaded;
  }
}
