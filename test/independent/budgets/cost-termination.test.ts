// API.md §26 (with §2's algebra and JSON), black-box through the package's public names only:
// a budget in money, reserved before each model call and settled after it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import {
  Agent,
  ConfigError,
  CostTermination,
  FileCheckpointStore,
  HandoffBuilder,
  MaxMessageTermination,
  ScriptedChatClient,
  scriptedText,
  terminationFromJSON,
  type TerminationCondition,
  TextMentionTermination,
} from '../../../src/index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** $0.0001 per answer token, prompts free: a call with a 1,000-token answer costs $0.10. */
const PRICES = { 'gpt-4.1-mini': { inputPerMillion: 0, outputPerMillion: 100 } };

function desk(budget: TerminationCondition, answers: number, store?: FileCheckpointStore) {
  const client = new ScriptedChatClient(
    Array.from({ length: answers }, (_, i) =>
      scriptedText(`reply ${i + 1}`, { promptTokens: 20, completionTokens: 1000 }),
    ),
    { model: 'gpt-4.1-mini' },
  );
  let builder = new HandoffBuilder({ participants: [new Agent({ name: 'support', client })] })
    .coordinator('support')
    .withTerminationCondition(budget);
  if (store !== undefined) builder = builder.withCheckpointing(store);
  return { workflow: builder.build(), client };
}

function caught(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  return 'no error';
}

describe('§26 CostTermination: configuration', () => {
  it('is a ConfigError at once without prices or price, or with a maxUsd that is not positive', () => {
    expect(caught(() => new CostTermination({ maxUsd: 0.5 }))).toBeInstanceOf(ConfigError);
    for (const maxUsd of [0, -0.5, Number.NaN]) {
      expect(caught(() => new CostTermination({ maxUsd, prices: PRICES }))).toBeInstanceOf(
        ConfigError,
      );
    }
    expect(
      caught(() => new CostTermination({ maxUsd: '0.5' as unknown as number, prices: PRICES })),
    ).toBeInstanceOf(ConfigError);
    expect(caught(() => new CostTermination({ maxUsd: 0.5, prices: PRICES }))).toBe('no error');
    expect(caught(() => new CostTermination({ maxUsd: 0.5, price: () => 0 }))).toBe('no error');
  });

  it('is a ConfigError naming a model without a price at its first call, which is not made', async () => {
    const client = new ScriptedChatClient([scriptedText('hi')], { model: 'mystery-model' });
    const workflow = new HandoffBuilder({ participants: [new Agent({ name: 'support', client })] })
      .coordinator('support')
      .withTerminationCondition(new CostTermination({ maxUsd: 1, prices: PRICES }))
      .build();
    const error = await workflow
      .session('x')
      .run('hello')
      .then(
        () => 'resolved',
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('mystery-model');
    expect(client.calls).toHaveLength(0);
  });

  it('prices any other model with "*"', async () => {
    const client = new ScriptedChatClient([scriptedText('hi')], { model: 'mystery-model' });
    const workflow = new HandoffBuilder({ participants: [new Agent({ name: 'support', client })] })
      .coordinator('support')
      .withTerminationCondition(
        new CostTermination({
          maxUsd: 1,
          prices: { ...PRICES, '*': { inputPerMillion: 1, outputPerMillion: 1 } },
        }),
      )
      .build();
    expect((await workflow.session('x').run('hello')).status).toBe('awaiting_input');
  });
});

describe('§26 CostTermination: JSON and the algebra', () => {
  it('round-trips through JSON with its prices, inside Or and And', () => {
    const budget = new CostTermination({ maxUsd: 0.5, prices: PRICES });
    const json = budget.toJSON();
    expect(json).toMatchObject({ type: 'CostTermination', maxUsd: 0.5, prices: PRICES });
    const rebuilt = terminationFromJSON(JSON.parse(JSON.stringify(json)));
    expect(rebuilt).toBeInstanceOf(CostTermination);
    expect(rebuilt.toJSON()).toEqual(json);
    const combined = new MaxMessageTermination(20)
      .or(budget)
      .and(new TextMentionTermination('BYE'));
    const again = terminationFromJSON(JSON.parse(JSON.stringify(combined.toJSON())));
    expect(again.toJSON()).toEqual(combined.toJSON());
  });

  it('has no JSON form with a price function', () => {
    const budget = new CostTermination({ maxUsd: 0.5, price: () => 0.01 });
    expect(caught(() => budget.toJSON())).toBeInstanceOf(ConfigError);
    expect(caught(() => new MaxMessageTermination(3).or(budget).toJSON())).toBeInstanceOf(
      ConfigError,
    );
  });
});

describe('§26 CostTermination: reservation before each call', () => {
  it('makes a call only while spent + reservation stays within maxUsd, and stops before it', async () => {
    // Reservation: 20-odd prompt tokens at $0 plus 1,000 answer tokens at $0.0001 = $0.10.
    const { workflow, client } = desk(
      new CostTermination({ maxUsd: 0.5, prices: PRICES, reserveOutputTokens: 1000 }),
      10,
    );
    const session = workflow.session('s');
    const outcomes: (string | null)[] = [];
    for (let i = 0; i < 7; i++) outcomes.push((await session.run(`question ${i}`)).stopReason);
    expect(outcomes).toEqual([
      null,
      null,
      null,
      null,
      null,
      'Cost budget of $0.50 reached',
      'Cost budget of $0.50 reached',
    ]);
    expect(client.calls).toHaveLength(5);
  });

  it('reserves 4,096 answer tokens by default', async () => {
    // 4,096 * $0.0001 = $0.4096 per reservation: with $0.50, only the first call is made.
    const { workflow, client } = desk(new CostTermination({ maxUsd: 0.5, prices: PRICES }), 3);
    const session = workflow.session('s');
    expect((await session.run('a')).status).toBe('awaiting_input');
    const second = await session.run('b');
    expect([second.status, second.stopReason]).toEqual([
      'terminated',
      'Cost budget of $0.50 reached',
    ]);
    expect(client.calls).toHaveLength(1);
  });

  it('composes with or(): the run stops for the budget before the call', async () => {
    const { workflow, client } = desk(
      new MaxMessageTermination(100).or(
        new CostTermination({ maxUsd: 0.15, prices: PRICES, reserveOutputTokens: 1000 }),
      ),
      5,
    );
    const session = workflow.session('s');
    await session.run('a');
    const stopped = await session.run('b');
    expect(stopped.stopReason).toBe('Cost budget of $0.15 reached');
    expect(client.calls).toHaveLength(1);
  });
});

describe('§26 CostTermination: spend per session', () => {
  it('keeps the spend across a restart and keeps sessions apart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-budgets-'));
    dirs.push(dir);
    const budget = () =>
      new CostTermination({ maxUsd: 0.25, prices: PRICES, reserveOutputTokens: 1000 });
    const first = desk(budget(), 5, new FileCheckpointStore(dir));
    await first.workflow.session('a').run('one');
    await first.workflow.session('a').run('two');
    const restarted = desk(budget(), 5, new FileCheckpointStore(dir));
    const third = await restarted.workflow.session('a').run('three');
    expect(third.stopReason).toBe('Cost budget of $0.25 reached');
    expect(restarted.client.calls).toHaveLength(0);
    // Another session of the same workflow has its own budget.
    expect((await restarted.workflow.session('b').run('one')).status).toBe('awaiting_input');
    expect(restarted.client.calls).toHaveLength(1);
  });
});
