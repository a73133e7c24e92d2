import { describe, expect, it } from 'vitest';

import { ConfigError } from '../errors.js';
import { MAX_CONDITION_DEPTH, terminationFromJSON } from './termination-config.js';

function nested(depth: number): unknown {
  let json: unknown = { type: 'StopMessageTermination' };
  for (let i = 0; i < depth; i++) json = { type: 'OrTerminationCondition', conditions: [json] };
  return json;
}

describe('terminationFromJSON()', () => {
  it('refuses a condition nested 10,000 levels deep with a ConfigError, not a stack overflow', () => {
    expect(() => terminationFromJSON(nested(10_000))).toThrow(
      new ConfigError(
        `terminationFromJSON(): the condition is nested more than ${MAX_CONDITION_DEPTH} levels deep. ` +
          'Flatten it: an OrTerminationCondition or AndTerminationCondition takes any number of ' +
          'conditions in one list.',
      ),
    );
  });

  it('accepts the deepest allowed nesting and refuses one level more', () => {
    expect(terminationFromJSON(nested(MAX_CONDITION_DEPTH)).toJSON()).toEqual(
      nested(MAX_CONDITION_DEPTH),
    );
    expect(() => terminationFromJSON(nested(MAX_CONDITION_DEPTH + 1))).toThrow(ConfigError);
  });
});
