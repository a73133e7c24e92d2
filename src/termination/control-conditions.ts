import { z } from 'zod';

import { ConfigError } from '../errors.js';
import type { AgentMessage, StopMessage } from '../messages/message.js';
import { LatchingCondition } from './latching-condition.js';
import { parseState, TerminationCondition } from './termination-condition.js';
import type { TerminationConfig } from './termination-config-types.js';
import { showValue } from './validate-options.js';

/** Options of `TimeoutTermination`. */
export interface TimeoutTerminationOptions {
  /** Milliseconds since the epoch; pass a fake clock in tests. @default Date.now */
  clock?: () => number;
}

const timeoutStateSchema = z.object({
  startedAt: z.number().nullable(),
  terminated: z.boolean(),
});

/**
 * Fires on the first `check()` at which `timeoutSeconds` have elapsed since the first `check()`
 * after construction or reset (the clock starts when the conversation does, not when the object is
 * built).
 * @example new TimeoutTermination(30)
 */
export class TimeoutTermination extends TerminationCondition {
  readonly timeoutSeconds: number;
  readonly #clock: () => number;
  #startedAt: number | null = null;
  #terminated = false;

  constructor(timeoutSeconds: number, options: TimeoutTerminationOptions = {}) {
    super();
    if (
      typeof timeoutSeconds !== 'number' ||
      !Number.isFinite(timeoutSeconds) ||
      timeoutSeconds <= 0
    ) {
      throw new ConfigError(
        `TimeoutTermination needs \`timeoutSeconds\` to be a positive number, got ${showValue(timeoutSeconds)}.`,
        { path: 'timeoutSeconds' },
      );
    }
    this.timeoutSeconds = timeoutSeconds;
    this.#clock = options.clock ?? Date.now;
  }

  override clone(): TimeoutTermination {
    return new TimeoutTermination(this.timeoutSeconds, { clock: this.#clock });
  }

  get terminated(): boolean {
    return this.#terminated;
  }

  async check(_messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.assertNotTerminated();
    const now = this.#clock();
    this.#startedAt ??= now;
    if (now - this.#startedAt < this.timeoutSeconds * 1000) return null;
    this.#terminated = true;
    return this.stop('TimeoutTermination', `Timeout of ${this.timeoutSeconds} seconds reached`);
  }

  reset(): void {
    this.#startedAt = null;
    this.#terminated = false;
  }

  override toJSON(): TerminationConfig {
    return { type: 'TimeoutTermination', timeoutSeconds: this.timeoutSeconds };
  }

  override saveState(): unknown {
    return { startedAt: this.#startedAt, terminated: this.#terminated };
  }

  override loadState(state: unknown): void {
    const parsed = parseState('TimeoutTermination', timeoutStateSchema, state);
    this.#startedAt = parsed.startedAt;
    this.#terminated = parsed.terminated;
  }
}

const externalStateSchema = z.object({ terminated: z.boolean() });

/**
 * Stops a conversation from outside (a Stop button, a shutdown hook): call `set()`, and the
 * condition fires on its next `check()`. `reset()` clears the request.
 *
 * Given to a workflow or team, it is one stop button for all its sessions: each session checks its
 * own clone, and every clone fires once at its next check after `set()` on this object (sessions
 * loaded while the request stands included) — until `reset()` on this object withdraws it.
 * `saveState()` holds only whether the condition has fired: the request is a live signal.
 * @example const stop = new ExternalTermination(); process.on('SIGINT', () => stop.set());
 */
export class ExternalTermination extends TerminationCondition {
  #requested = false;
  #terminated = false;
  /** How many times `set()` was called: each clone answers every request once. */
  #requests = 0;
  /** The object whose `set()` a clone obeys (itself for an original). */
  #origin: ExternalTermination = this;
  /** For a clone: the origin's requests it has answered (or that predate it and were withdrawn). */
  #answered = 0;

  /** Requests a stop at the next `check()` (of every session, for a workflow's condition). */
  set(): void {
    this.#requested = true;
    this.#requests++;
  }

  get terminated(): boolean {
    return this.#terminated;
  }

  async check(_messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.assertNotTerminated();
    const origin = this.#origin;
    const fromOrigin = origin !== this && origin.#requested && origin.#requests > this.#answered;
    if (!this.#requested && !fromOrigin) return null;
    this.#answered = origin.#requests;
    this.#terminated = true;
    return this.stop('ExternalTermination', 'External termination requested');
  }

  reset(): void {
    this.#requested = false;
    this.#terminated = false;
  }

  override clone(): ExternalTermination {
    const copy = new ExternalTermination();
    const origin = this.#origin;
    copy.#origin = origin;
    // A request that stands when the clone is made applies to it too.
    copy.#answered = origin.#requested ? origin.#requests - 1 : origin.#requests;
    return copy;
  }

  override toJSON(): TerminationConfig {
    return { type: 'ExternalTermination' };
  }

  override saveState(): unknown {
    return { terminated: this.#terminated };
  }

  override loadState(state: unknown): void {
    this.#terminated = parseState('ExternalTermination', externalStateSchema, state).terminated;
  }
}

/**
 * Fires when `fn(delta)` returns (or resolves to) `true`. Not serialisable: `toJSON()` throws.
 * @example new FunctionalTermination((delta) => delta.some((m) => m.source === 'critic'))
 */
export class FunctionalTermination extends LatchingCondition {
  protected readonly kind = 'FunctionalTermination';
  readonly #fn: (messages: readonly AgentMessage[]) => boolean | Promise<boolean>;

  constructor(fn: (messages: readonly AgentMessage[]) => boolean | Promise<boolean>) {
    super();
    if (typeof fn !== 'function') {
      throw new ConfigError(
        `FunctionalTermination needs a function (messages) => boolean, got ${typeof fn}.`,
        { path: 'fn' },
      );
    }
    this.#fn = fn;
  }

  override clone(): FunctionalTermination {
    return new FunctionalTermination(this.#fn);
  }

  protected async match(messages: readonly AgentMessage[]): Promise<string | null> {
    return (await this.#fn(messages)) === true ? 'Functional termination condition met' : null;
  }

  override toJSON(): TerminationConfig {
    throw new ConfigError(
      'FunctionalTermination wraps a function and has no JSON form. Use a serialisable condition ' +
        '(e.g. TextMentionTermination) where the configuration must be saved.',
    );
  }
}
