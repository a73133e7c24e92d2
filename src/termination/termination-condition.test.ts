import { describe, expect, it } from 'vitest';

import { ConfigError } from '../errors.js';
import type { AgentMessage, StopMessage } from '../messages/message.js';
import { MaxMessageTermination } from './budget-conditions.js';
import { ExternalTermination } from './control-conditions.js';
import { TextMentionTermination } from './message-conditions.js';
import { TerminationCondition, withoutClone } from './termination-condition.js';

class Never extends TerminationCondition {
  get terminated(): boolean {
    return false;
  }
  async check(_messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    return null;
  }
  reset(): void {}
}

class ClonedNever extends Never {
  override clone(): ClonedNever {
    return new ClonedNever();
  }
}

describe('TerminationCondition.clone()', () => {
  it('throws a ConfigError naming a custom class that does not implement it', () => {
    expect(() => new Never().clone()).toThrow(
      new ConfigError(
        'Never has no clone(). Implement clone() in Never (return a new instance with the same ' +
          'options) to give each session its own.',
      ),
    );
  });

  it('throws for a combinator holding such a condition, naming the child', () => {
    expect(() => new MaxMessageTermination(3).or(new Never()).clone()).toThrow(
      'Never has no clone().',
    );
  });

  it("returns the subclass's own copy when it implements one", () => {
    const original = new ClonedNever();
    const copy = original.clone();
    expect([copy instanceof ClonedNever, copy === original]).toEqual([true, false]);
  });
});

describe('withoutClone()', () => {
  it('finds the condition whose class lacks clone(), at any depth, or undefined', () => {
    const max = new MaxMessageTermination(3);
    const mention = new TextMentionTermination('DONE');
    const never = new Never();
    expect([
      withoutClone(max),
      withoutClone(max.or(mention).and(new ExternalTermination())),
      withoutClone(new ClonedNever()),
    ]).toEqual([undefined, undefined, undefined]);
    expect([
      withoutClone(never),
      withoutClone(max.or(never)),
      withoutClone(max.and(mention.or(never))),
    ]).toEqual([never, never, never]);
  });
});
