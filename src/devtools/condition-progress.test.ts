import { describe, expect, it } from 'vitest';

import { textMessage } from '../messages/message-factories.js';
import { MaxMessageTermination, TokenUsageTermination } from '../termination/budget-conditions.js';
import {
  ExternalTermination,
  FunctionalTermination,
  TimeoutTermination,
} from '../termination/control-conditions.js';
import { TextMentionTermination } from '../termination/message-conditions.js';
import { CostTermination } from '../termination/cost-termination.js';
import { conditionProgress } from './condition-progress.js';

const said = (content: string, tokens = 0) =>
  textMessage({
    source: 'agent',
    content,
    usage: { promptTokens: tokens, completionTokens: tokens / 2 },
  });

describe('conditionProgress()', () => {
  it('counts messages and tokens against their limits', async () => {
    const condition = new MaxMessageTermination(20).or(
      new TokenUsageTermination({ maxTotalToken: 5000 }),
    );
    for (let i = 0; i < 7; i++) await condition.check([said(`m${i}`, i === 0 ? 1000 : 120)]);
    expect(conditionProgress(condition, condition.saveState())).toEqual({
      type: 'OrTerminationCondition',
      label: 'any of',
      fired: false,
      children: [
        { type: 'MaxMessageTermination', label: 'messages 7/20', fired: false, ratio: 0.35 },
        {
          type: 'TokenUsageTermination',
          label: 'tokens 2,580/5,000',
          fired: false,
          ratio: 0.516,
        },
      ],
    });
  });

  it('flattens a chain of .or() and reports what fired', async () => {
    const condition = new TextMentionTermination('bye', { sources: ['user'] })
      .or(new MaxMessageTermination(3))
      .or(new ExternalTermination());
    await condition.check([textMessage({ source: 'user', content: 'bye' })]);
    const progress = conditionProgress(condition, condition.saveState());
    expect(progress.fired).toBe(true);
    expect(progress.children?.map((c) => [c.label, c.fired])).toEqual([
      ["text 'bye' from user", true],
      ['messages 1/3', false],
      ['external stop', false],
    ]);
  });

  it('shows a budget in money: what was spent of the budget and what was granted', () => {
    const cost = new CostTermination({
      maxUsd: 0.5,
      prices: { m: { inputPerMillion: 1, outputPerMillion: 1 } },
    });
    expect(conditionProgress(cost, { spentUsd: 0.3, grantedUsd: 0.5 })).toEqual({
      type: 'CostTermination',
      label: 'spent $0.3000/$1.00',
      fired: false,
      ratio: 0.3,
    });
  });

  it('reads elapsed time from the saved start of a timeout', () => {
    const condition = new TimeoutTermination(30);
    expect(conditionProgress(condition, { startedAt: 1_000, terminated: false }, 13_500)).toEqual({
      type: 'TimeoutTermination',
      label: 'time 12s/30s',
      fired: false,
      ratio: 12.5 / 30,
    });
    expect(conditionProgress(condition, { startedAt: null, terminated: false }).label).toBe(
      'time 0s/30s (not started)',
    );
  });

  it('names a condition it cannot compute and keeps its siblings', () => {
    const condition = new FunctionalTermination(() => false).or(new MaxMessageTermination(5));
    const progress = conditionProgress(condition, condition.saveState());
    expect(progress.children?.map((c) => c.label)).toEqual([
      'FunctionalTermination (not computable)',
      'messages 0/5',
    ]);
  });

  it('reads a fresh session (no saved state) as nothing counted yet', () => {
    expect(
      conditionProgress(new TokenUsageTermination({ maxPromptToken: 100 }), undefined).label,
    ).toBe('prompt tokens 0/100');
  });
});
