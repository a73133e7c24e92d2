import type { AgentMessage, StopMessage } from '../messages/message.js';
import { stopMessage } from '../messages/message-factories.js';
import { TerminationCondition } from '../termination/termination-condition.js';

/** A predicate over the whole thread, checked after each delta. */
export type ThreadPredicate = (conversation: readonly AgentMessage[]) => boolean | Promise<boolean>;

/**
 * When a session stops: a termination condition fed deltas, or a predicate over the whole thread.
 * One rule serves every session of a workflow; each session keeps its own condition state, which
 * is swapped into the shared condition object for the duration of a check.
 */
export interface StopRule {
  /**
   * Checks one delta of a session whose saved condition state is `state`; `thread` gives the
   * whole thread including the delta (built only for rules that read it).
   */
  check(
    delta: readonly AgentMessage[],
    thread: () => readonly AgentMessage[],
    state: unknown,
  ): Promise<{ stop: StopMessage | null; state: unknown }>;
  /** The saved state of a reset condition. */
  resetState(state: unknown): Promise<unknown>;
  /** The saved state of a fresh session. */
  readonly initialState: unknown;
  /** What is wrong with a saved condition state, or null. */
  problemWith(state: unknown): string | null;
}

/** Builds the stop rule of a workflow from what `withTerminationCondition` received. */
export function toStopRule(rule: TerminationCondition | ThreadPredicate): StopRule {
  return rule instanceof TerminationCondition ? new ConditionRule(rule) : new PredicateRule(rule);
}

class PredicateRule implements StopRule {
  readonly initialState = null;
  readonly #predicate: ThreadPredicate;

  constructor(predicate: ThreadPredicate) {
    this.#predicate = predicate;
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

  async resetState(): Promise<unknown> {
    return null;
  }

  problemWith(): string | null {
    return null;
  }
}

class ConditionRule implements StopRule {
  readonly initialState: unknown;
  readonly #condition: TerminationCondition;
  /** Checks of one condition object run one at a time, so sessions never see each other's state. */
  #queue: Promise<unknown> = Promise.resolve();
  /** The saved state the live condition object holds right now (skips a reload when unchanged). */
  #loaded: unknown;

  constructor(condition: TerminationCondition) {
    this.#condition = condition;
    condition.reset();
    this.initialState = condition.saveState();
    this.#loaded = this.initialState;
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

  problemWith(state: unknown): string | null {
    // Synchronous, so no check of another session can run in between.
    const live = this.#condition.saveState();
    try {
      this.#condition.loadState(state);
      return null;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return (
        `its termination-condition state does not fit this workflow's condition (${reason}); ` +
        'if the condition was changed, resume with the condition that wrote it'
      );
    } finally {
      this.#condition.loadState(live);
    }
  }

  #load(state: unknown): void {
    if (state !== this.#loaded) this.#condition.loadState(state);
  }

  #save(): unknown {
    this.#loaded = this.#condition.saveState();
    return this.#loaded;
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(work);
    this.#queue = result.catch(() => undefined);
    return result;
  }
}
