import { describe, expect, it } from 'vitest';

import { ConfigError } from '../errors.js';
import { MaxMessageTermination } from './budget-conditions.js';
import { terminationFromJSON } from './termination-config.js';

describe('MaxMessageTermination', () => {
  it('refuses a limit of 0 at construction, since it could never be checked', () => {
    expect(() => new MaxMessageTermination(0)).toThrow(ConfigError);
    expect(() => new MaxMessageTermination(0)).toThrow(
      'MaxMessageTermination needs `maxMessages` to be a positive integer, got 0. ' +
        'Use 1 or more (a limit of 0 would stop before any message).',
    );
  });

  it('refuses a limit of 0 from JSON too, naming the path', () => {
    let error: unknown;
    try {
      terminationFromJSON({ type: 'MaxMessageTermination', maxMessages: 0 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ path: 'maxMessages' });
  });
});
