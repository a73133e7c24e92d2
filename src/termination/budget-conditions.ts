import { z } from 'zod';

import { ConfigError } from '../errors.js';
import type { AgentMessage, StopMessage } from '../messages/message.js';
import { isChatMessage } from '../messages/message.js';
import { parseState, TerminationCondition } from './termination-condition.js';
import type { TerminationConfig } from './termination-config-types.js';
import { requireCount, showValue } from './validate-options.js';

/** Options of `MaxMessageTermination`. */
export interface MaxMessageTerminationOptions {
  /** Count agent events (tool calls, thoughts, ...) too, not only chat messages. @default false */
  includeAgentEvent?: boolean;
}

const countStateSchema = z.object({ count: z.number().int().nonnegative() });

/**
 * Fires once `maxMessages` messages have been seen since reset (chat messages only, unless
 * `includeAgentEvent`). Counting is over deltas: each `check()` adds its delta to the count.
 * @example new MaxMessageTermination(10)
 * @throws ConfigError unless `maxMessages` is an integer >= 1: a limit of 0 would have fired
 * before the first check, so every run would fail instead of stopping.
 */
export class MaxMessageTermination extends TerminationCondition {
  readonly maxMessages: number;
  readonly includeAgentEvent: boolean;
  #count = 0;

  constructor(maxMessages: number, options: MaxMessageTerminationOptions = {}) {
    super();
    this.maxMessages = requireCount('MaxMessageTermination', 'maxMessages', maxMessages);
    if (this.maxMessages === 0) {
      throw new ConfigError(
        'MaxMessageTermination needs `maxMessages` to be a positive integer, got 0. ' +
          'Use 1 or more (a limit of 0 would stop before any message).',
        { path: 'maxMessages' },
      );
    }
    const include = options.includeAgentEvent ?? false;
    if (typeof include !== 'boolean') {
      throw new ConfigError(
        `MaxMessageTermination needs \`includeAgentEvent\` to be a boolean, got ${showValue(include)}.`,
        { path: 'includeAgentEvent' },
      );
    }
    this.includeAgentEvent = include;
  }

  get terminated(): boolean {
    return this.#count >= this.maxMessages;
  }

  async check(messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.assertNotTerminated();
    for (const m of messages) if (this.includeAgentEvent || isChatMessage(m)) this.#count++;
    if (!this.terminated) return null;
    return this.stop(
      'MaxMessageTermination',
      `Maximum number of messages ${this.maxMessages} reached, current message count: ${this.#count}`,
    );
  }

  reset(): void {
    this.#count = 0;
  }

  override toJSON(): TerminationConfig {
    return {
      type: 'MaxMessageTermination',
      maxMessages: this.maxMessages,
      includeAgentEvent: this.includeAgentEvent,
    };
  }

  override saveState(): unknown {
    return { count: this.#count };
  }

  override loadState(state: unknown): void {
    this.#count = parseState('MaxMessageTermination', countStateSchema, state).count;
  }
}

/** Options of `TokenUsageTermination`; at least one limit is required. */
export interface TokenUsageTerminationOptions {
  maxTotalToken?: number;
  maxPromptToken?: number;
  maxCompletionToken?: number;
}

const tokenStateSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  terminated: z.boolean(),
});

/**
 * Fires when the cumulative token usage of the messages seen since reset reaches (`>=`) any
 * configured limit. Usage is read from each message's `usage`.
 * @example new TokenUsageTermination({ maxTotalToken: 5000 })
 * @throws ConfigError when no limit is given.
 */
export class TokenUsageTermination extends TerminationCondition {
  readonly maxTotalToken: number | undefined;
  readonly maxPromptToken: number | undefined;
  readonly maxCompletionToken: number | undefined;
  #prompt = 0;
  #completion = 0;
  #terminated = false;

  constructor(options: TokenUsageTerminationOptions) {
    super();
    const limit = (field: keyof TokenUsageTerminationOptions): number | undefined => {
      const value = options?.[field];
      return value === undefined ? undefined : requireCount('TokenUsageTermination', field, value);
    };
    this.maxTotalToken = limit('maxTotalToken');
    this.maxPromptToken = limit('maxPromptToken');
    this.maxCompletionToken = limit('maxCompletionToken');
    if (
      this.maxTotalToken === undefined &&
      this.maxPromptToken === undefined &&
      this.maxCompletionToken === undefined
    ) {
      throw new ConfigError(
        'TokenUsageTermination needs at least one limit: give maxTotalToken, maxPromptToken or ' +
          'maxCompletionToken.',
      );
    }
  }

  get terminated(): boolean {
    return this.#terminated;
  }

  async check(messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.assertNotTerminated();
    for (const m of messages) {
      if (m.usage === undefined) continue;
      this.#prompt += m.usage.promptTokens;
      this.#completion += m.usage.completionTokens;
    }
    const total = this.#prompt + this.#completion;
    const reached = (limit: number | undefined, value: number) =>
      limit !== undefined && value >= limit;
    this.#terminated =
      reached(this.maxTotalToken, total) ||
      reached(this.maxPromptToken, this.#prompt) ||
      reached(this.maxCompletionToken, this.#completion);
    if (!this.#terminated) return null;
    return this.stop(
      'TokenUsageTermination',
      `Token usage limit reached, total token count: ${total}, prompt token count: ${this.#prompt}, ` +
        `completion token count: ${this.#completion}.`,
    );
  }

  reset(): void {
    this.#prompt = 0;
    this.#completion = 0;
    this.#terminated = false;
  }

  override toJSON(): TerminationConfig {
    const config: TerminationConfig & { type: 'TokenUsageTermination' } = {
      type: 'TokenUsageTermination',
    };
    if (this.maxTotalToken !== undefined) config.maxTotalToken = this.maxTotalToken;
    if (this.maxPromptToken !== undefined) config.maxPromptToken = this.maxPromptToken;
    if (this.maxCompletionToken !== undefined) config.maxCompletionToken = this.maxCompletionToken;
    return config;
  }

  override saveState(): unknown {
    return {
      promptTokens: this.#prompt,
      completionTokens: this.#completion,
      terminated: this.#terminated,
    };
  }

  override loadState(state: unknown): void {
    const parsed = parseState('TokenUsageTermination', tokenStateSchema, state);
    this.#prompt = parsed.promptTokens;
    this.#completion = parsed.completionTokens;
    this.#terminated = parsed.terminated;
  }
}
