import { describe, expect, it } from 'vitest';

import {
  Agent,
  ConfigError,
  HandoffBuilder,
  MaxMessageTermination,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  type TerminationConfig,
  terminationFromJSON,
  textMessage,
} from '../../../src/index.js';

/**
 * Issue 12, items 8 and 9. Item 8 lets the fix either refuse `MaxMessageTermination(0)` with a
 * ConfigError or make it stop at once, documented; this suite asserts the first option,
 * the ConfigError at construction.
 */

async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('MaxMessageTermination refuses a limit that can never be met (item 8)', () => {
  for (const bad of [0, -1, Number.NaN, 1.5]) {
    it(`new MaxMessageTermination(${String(bad)}) → ConfigError naming the value`, async () => {
      const error = await caught(() => new MaxMessageTermination(bad));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).name).toBe('ConfigError');
      expect((error as Error).message).toContain('maxMessages');
    });

    it(`terminationFromJSON with maxMessages ${String(bad)} → ConfigError`, async () => {
      const error = await caught(() =>
        terminationFromJSON({
          type: 'MaxMessageTermination',
          maxMessages: bad,
          includeAgentEvent: false,
        } as TerminationConfig),
      );
      expect(error).toBeInstanceOf(ConfigError);
    });
  }

  it('with includeAgentEvent too', async () => {
    expect(
      await caught(() => new MaxMessageTermination(0, { includeAgentEvent: true })),
    ).toBeInstanceOf(ConfigError);
  });

  it('control: MaxMessageTermination(1) fires on the first message', async () => {
    const condition = new MaxMessageTermination(1);
    const stop = await condition.check([textMessage({ source: 'user', content: 'hi' })]);
    expect(stop?.content).toBe('Maximum number of messages 1 reached, current message count: 1');
  });

  it('a run never throws a plain Error because of the limit', async () => {
    // If construction were (wrongly) accepted, the run must not reject with a plain Error.
    let condition: MaxMessageTermination;
    try {
      condition = new MaxMessageTermination(0);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return;
    }
    const team = new RoundRobinGroupChat(
      [new Agent({ name: 'a', client: new ScriptedChatClient([scriptedText('x')]) })],
      { terminationCondition: condition, maxTurns: 1 },
    );
    const error = await caught(() => team.run('go'));
    expect(error === undefined || error instanceof ConfigError).toBe(true);
  });
});

/** `{type: Or|And, conditions: [ ...one level deeper ]}` nested `depth` times around a leaf. */
function nested(depth: number, type = 'OrTerminationCondition'): TerminationConfig {
  let config: unknown = { type: 'StopMessageTermination' };
  for (let i = 0; i < depth; i++) config = { type, conditions: [config] };
  return config as TerminationConfig;
}

describe('terminationFromJSON refuses a condition nested too deep (item 9)', () => {
  for (const [depth, type] of [
    [10_000, 'OrTerminationCondition'],
    [10_000, 'AndTerminationCondition'],
    [100_000, 'OrTerminationCondition'],
  ] as const) {
    it(`${type} nested ${depth.toLocaleString('en')} deep → ConfigError, not a stack overflow`, async () => {
      const error = await caught(() => terminationFromJSON(nested(depth, type)));
      expect(error).toBeInstanceOf(ConfigError);
      expect(error).not.toBeInstanceOf(RangeError);
      expect((error as Error).message).not.toMatch(/call stack/i);
    });
  }

  it('a deep nest through JSON text, as read from a file, → ConfigError', async () => {
    // Built as text: JSON.stringify of the nest would itself overflow the test's stack.
    const open = '{"type":"OrTerminationCondition","conditions":[';
    const text = `${open.repeat(10_000)}{"type":"StopMessageTermination"}${']}'.repeat(10_000)}`;
    const error = await caught(() => terminationFromJSON(JSON.parse(text) as TerminationConfig));
    expect(error).toBeInstanceOf(ConfigError);
  });

  it('alternating And/Or nested 10,000 deep with extra siblings → ConfigError', async () => {
    let config: unknown = { type: 'ExternalTermination' };
    for (let i = 0; i < 10_000; i++) {
      config = {
        type: i % 2 ? 'AndTerminationCondition' : 'OrTerminationCondition',
        conditions: [{ type: 'StopMessageTermination' }, config],
      };
    }
    const error = await caught(() => terminationFromJSON(config as TerminationConfig));
    expect(error).toBeInstanceOf(ConfigError);
  });

  it('a workflow given a deeply nested JSON condition gets the ConfigError', async () => {
    const error = await caught(() =>
      new HandoffBuilder({
        participants: [new Agent({ name: 'a', client: new ScriptedChatClient([]) })],
      })
        .coordinator('a')
        .withTerminationCondition(terminationFromJSON(nested(10_000)))
        .build(),
    );
    expect(error).toBeInstanceOf(ConfigError);
  });

  it('control: a condition nested 10 deep round-trips', () => {
    const config = nested(10);
    expect(terminationFromJSON(config).toJSON()).toEqual(config);
  });
});
