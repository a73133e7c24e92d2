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
 * The request is a live signal, not conversation state: `saveState()` holds only whether the
 * condition has fired, so a workflow whose sessions share this object stops the next session that
 * checks it after `set()`.
 * @example const stop = new ExternalTermination(); process.on('SIGINT', () => stop.set());
 */
export class ExternalTermination extends TerminationCondition {
  #requested = false;
  #terminated = false;

  /** Requests a stop at the next `check()`. */
  set(): void {
    this.#requested = true;
  }

  get terminated(): boolean {
    return this.#terminated;
  }

  async check(_messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.assertNotTerminated();
    if (!this.#requested) return null;
    this.#terminated = true;
    return this.stop('ExternalTermination', 'External termination requested');
  }

  reset(): void {
    this.#requested = false;
    this.#terminated = false;
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
