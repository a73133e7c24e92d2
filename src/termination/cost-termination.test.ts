import { describe, expect, it } from 'vitest';

import { ConfigError } from '../errors.js';
import { CostTermination } from './cost-termination.js';
import { formatUsd } from './cost-prices.js';
import { MaxMessageTermination } from './budget-conditions.js';
import type { ModelCallPlan } from './model-call.js';
import { terminationFromJSON } from './termination-config.js';
import { textMessage } from '../messages/message-factories.js';

const prices = { 'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 } };

function plan(promptTokens: number, model: string | undefined = 'gpt-4.1-mini'): ModelCallPlan {
  return { agent: 'triage', model, promptTokens, maxCompletionTokens: undefined };
}

function thrown(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('CostTermination', () => {
  it('refuses a budget that is not a positive number, and a missing or double price, at once', () => {
    for (const maxUsd of [0, -1, Number.NaN, Infinity, '0.5']) {
      const error = thrown(() => new CostTermination({ maxUsd: maxUsd as number, prices }));
      expect(error).toBeInstanceOf(ConfigError);
      expect(error).toMatchObject({ path: 'maxUsd' });
    }
    expect(thrown(() => new CostTermination({ maxUsd: 1 }))).toMatchObject({
      name: 'ConfigError',
      path: 'prices',
      message:
        'CostTermination needs `prices` (per million input and output tokens, by model) or a ' +
        '`price` function (usage, model) => dollars.',
    });
    expect(thrown(() => new CostTermination({ maxUsd: 1, prices, price: () => 0 }))).toMatchObject({
      name: 'ConfigError',
      path: 'price',
    });
    expect(
      thrown(
        () =>
          new CostTermination({
            maxUsd: 1,
            prices: { m: { inputPerMillion: -1, outputPerMillion: 1 } },
          }),
      ),
    ).toMatchObject({ name: 'ConfigError', path: 'prices.m.inputPerMillion' });
  });

  it('reserves prompt plus 4,096 answer tokens and refuses the call that would pass the budget', () => {
    // 1,000 prompt tokens + 4,096 answer tokens = 0.0004 + 0.0065536 = $0.0069536 per call.
    const cost = new CostTermination({ maxUsd: 0.02, prices });
    const first = plan(1000);
    expect(cost.admitModelCall(first)).toBeNull();
    cost.settleModelCall(first, { promptTokens: 1000, completionTokens: 4096 });
    const second = plan(1000);
    expect(cost.admitModelCall(second)).toBeNull();
    cost.settleModelCall(second, { promptTokens: 1000, completionTokens: 4096 });
    expect(cost.spentUsd).toBeCloseTo(0.0139072, 12);
    const refusal = cost.admitModelCall(plan(1000));
    expect(refusal).toEqual({
      stop: expect.objectContaining({
        type: 'StopMessage',
        source: 'CostTermination',
        content: 'Cost budget of $0.02 reached',
      }),
      ask: false,
    });
  });

  it('holds a reservation until the call settles, so calls in flight together stay in budget', () => {
    const cost = new CostTermination({ maxUsd: 0.01, prices, reserveOutputTokens: 1000 });
    // Each call reserves 1,000 * 0.4 + 1,000 * 1.6 per million = $0.002.
    const calls = [1, 2, 3, 4, 5].map(() => plan(1000));
    expect(calls.map((c) => cost.admitModelCall(c) === null)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(cost.admitModelCall(plan(1000))).not.toBeNull();
    cost.settleModelCall(calls[0]!, null);
    expect(cost.admitModelCall(plan(1000))).toBeNull();
  });

  it('uses the client’s own answer limit instead of reserveOutputTokens when it says one', () => {
    const cost = new CostTermination({ maxUsd: 0.001, prices });
    // 4,096 answer tokens would be $0.0066; 100 are $0.00016.
    expect(cost.admitModelCall({ ...plan(100), maxCompletionTokens: 100 })).toBeNull();
  });

  it('names a model without a price at its first call; "*" prices any other model', () => {
    const cost = new CostTermination({ maxUsd: 1, prices });
    expect(thrown(() => cost.admitModelCall(plan(10, 'gpt-5')))).toMatchObject({
      name: 'ConfigError',
      path: 'prices.gpt-5',
      message:
        'CostTermination has no price for model "gpt-5". Add "gpt-5" to `prices`, or a "*" ' +
        'price for any other model.',
    });
    const any = new CostTermination({
      maxUsd: 1,
      prices: { ...prices, '*': { inputPerMillion: 1, outputPerMillion: 1 } },
    });
    expect(any.admitModelCall(plan(10, 'gpt-5'))).toBeNull();
    expect(any.admitModelCall(plan(10, undefined))).toBeNull();
  });

  it('prices with a function, which has no JSON form', () => {
    const seen: string[] = [];
    const cost = new CostTermination({
      maxUsd: 1,
      price: (usage, model) => {
        seen.push(`${model}:${usage.promptTokens}+${usage.completionTokens}`);
        return 0.6;
      },
    });
    const call = plan(10);
    expect(cost.admitModelCall(call)).toBeNull();
    cost.settleModelCall(call, { promptTokens: 10, completionTokens: 5 });
    expect(cost.admitModelCall(plan(10))?.stop.content).toBe('Cost budget of $1.00 reached');
    expect(seen).toEqual(['gpt-4.1-mini:10+4096', 'gpt-4.1-mini:10+5', 'gpt-4.1-mini:10+4096']);
    expect(thrown(() => cost.toJSON())).toMatchObject({ name: 'ConfigError', path: 'price' });
  });

  it('round-trips through JSON with its prices, alone and in a combinator', () => {
    const cost = new CostTermination({
      maxUsd: 0.5,
      prices,
      onExhausted: 'ask',
      reserveOutputTokens: 512,
    });
    expect(cost.toJSON()).toEqual({
      type: 'CostTermination',
      maxUsd: 0.5,
      prices,
      onExhausted: 'ask',
      reserveOutputTokens: 512,
    });
    const either = new MaxMessageTermination(10).or(new CostTermination({ maxUsd: 2, prices }));
    const json = either.toJSON();
    expect(json).toEqual({
      type: 'OrTerminationCondition',
      conditions: [
        { type: 'MaxMessageTermination', maxMessages: 10, includeAgentEvent: false },
        { type: 'CostTermination', maxUsd: 2, prices },
      ],
    });
    expect(terminationFromJSON(JSON.parse(JSON.stringify(json))).toJSON()).toEqual(json);
    expect(terminationFromJSON(cost.toJSON())).toBeInstanceOf(CostTermination);
    expect(
      thrown(() => terminationFromJSON({ type: 'CostTermination', maxUsd: 0, prices })),
    ).toMatchObject({ name: 'ConfigError', path: 'maxUsd' });
  });

  it('keeps its spend in its saved state and across a reset; it never fires on messages', async () => {
    const cost = new CostTermination({ maxUsd: 0.001, prices, reserveOutputTokens: 0 });
    const call = plan(2500);
    expect(cost.admitModelCall(call)).toBeNull();
    cost.settleModelCall(call, { promptTokens: 2500, completionTokens: 0 });
    expect(cost.saveState()).toEqual({ spentUsd: 0.001, grantedUsd: 0 });
    expect(await cost.check([textMessage({ source: 'triage', content: 'hi' })])).toBeNull();
    expect(cost.terminated).toBe(false);
    expect(cost.admitModelCall(plan(1))?.stop.content).toBe('Cost budget of $0.001 reached');
    cost.reset();
    expect(cost.saveState()).toEqual({ spentUsd: 0.001, grantedUsd: 0 });
    const moved = cost.clone();
    expect(moved.saveState()).toEqual({ spentUsd: 0, grantedUsd: 0 });
    moved.loadState(cost.saveState());
    expect(moved.spentUsd).toBe(0.001);
    expect(thrown(() => moved.loadState({ spentUsd: -1 }))).toBeInstanceOf(ConfigError);
  });

  it('asks instead of stopping with onExhausted "ask", and a raise lets the call through', async () => {
    const cost = new CostTermination({ maxUsd: 0.001, prices, onExhausted: 'ask' });
    const refusal = cost.admitModelCall(plan(10));
    expect(refusal?.ask).toBe(true);
    expect(refusal?.stop.content).toBe('Cost budget of $0.001 reached');
    expect(await cost.check([])).toBeNull();
    expect(cost.raiseBudget(0.5)).toBe(true);
    expect(cost.limitUsd).toBe(0.501);
    expect(cost.admitModelCall(plan(10))).toBeNull();
    expect(cost.saveState()).toEqual({ spentUsd: 0, grantedUsd: 0.5 });
  });

  it('in an Or, refuses when it refuses and releases what the others held', () => {
    const small = new CostTermination({ maxUsd: 0.001, prices });
    const big = new CostTermination({ maxUsd: 1, prices });
    const either = big.or(small);
    expect(either.limitsModelCalls).toBe(true);
    expect(either.admitModelCall(plan(10))?.stop.content).toBe('Cost budget of $0.001 reached');
    // big's reservation was released: its whole budget is there for a call of $0.99.
    expect(big.admitModelCall({ ...plan(0), maxCompletionTokens: 618_750 })).toBeNull();
    expect(new MaxMessageTermination(3).or(new MaxMessageTermination(4)).limitsModelCalls).toBe(
      false,
    );
  });

  it('in an And, refuses only once the other children have fired', async () => {
    const cost = new CostTermination({ maxUsd: 0.001, prices });
    const both = new MaxMessageTermination(1).and(cost);
    const call = plan(10);
    expect(both.admitModelCall(call)).toBeNull();
    both.settleModelCall(call, { promptTokens: 10, completionTokens: 1 });
    expect(cost.spentUsd).toBeCloseTo(0.0000056, 12);
    await both.check([textMessage({ source: 'a', content: 'x' })]);
    expect(both.admitModelCall(plan(10))?.stop.content).toBe(
      'Maximum number of messages 1 reached, current message count: 1, Cost budget of $0.001 reached',
    );
  });
});

describe('formatUsd()', () => {
  it('shows cents with two decimals and smaller amounts with the decimals they need', () => {
    expect([0.5, 2, 10.25, 0.005, 0.125, 0.0000001].map(formatUsd)).toEqual([
      '$0.50',
      '$2.00',
      '$10.25',
      '$0.005',
      '$0.125',
      '$1e-7',
    ]);
  });
});
