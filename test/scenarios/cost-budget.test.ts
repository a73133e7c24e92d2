import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { FileCheckpointStore } from '../../src/checkpoint/file-checkpoint-store.js';
import { MemoryCheckpointStore } from '../../src/checkpoint/memory-checkpoint-store.js';
import { ConfigError } from '../../src/errors.js';
import { Agent } from '../../src/agents/agent.js';
import { ScriptedChatClient, scriptedText } from '../../src/models/scripted-chat-client.js';
import { HandoffBuilder } from '../../src/orchestrations/handoff/handoff-builder.js';
import { CostTermination } from '../../src/termination/cost-termination.js';
import { MaxMessageTermination } from '../../src/termination/budget-conditions.js';
import { bundledScript } from '../support/bundled-script.js';
import { costDesk } from '../support/cost-desk.js';

const dirs: string[] = [];
function storeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-cost-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('CostTermination in a session', () => {
  it('stops before the call that would pass the budget, never after it', async () => {
    // Each call reserves and costs $0.10: with $0.35, three are made and the fourth is not.
    const { workflow, client } = costDesk(undefined, 0.35, 5);
    const session = workflow.session('s1');
    const results = [];
    for (const text of ['one', 'two', 'three', 'four', 'five'])
      results.push(await session.run(text));
    expect(results.map((r) => [r.status, r.stopReason])).toEqual([
      ['awaiting_input', null],
      ['awaiting_input', null],
      ['awaiting_input', null],
      ['terminated', 'Cost budget of $0.35 reached'],
      ['terminated', 'Cost budget of $0.35 reached'],
    ]);
    expect(client.calls.length).toBe(3);
    expect(await session.saveState()).toMatchObject({
      termination: { spentUsd: 0.30000000000000004, grantedUsd: 0 },
    });
  });

  it('reserves the prompt too: a call whose prompt alone would pass the budget is not made', async () => {
    const client = new ScriptedChatClient([scriptedText('never')], { model: 'big' });
    const seen: number[] = [];
    const workflow = new HandoffBuilder({ participants: [new Agent({ name: 'desk', client })] })
      .coordinator('desk')
      .withTerminationCondition(
        new CostTermination({
          maxUsd: 0.01,
          reserveOutputTokens: 0,
          price: (usage) => {
            seen.push(usage.promptTokens);
            return usage.promptTokens * 0.001;
          },
        }),
      )
      .build();
    const result = await workflow.session('s').run('x'.repeat(400));
    expect(result.stopReason).toBe('Cost budget of $0.01 reached');
    expect(client.calls.length).toBe(0);
    // The prompt's JSON is over 400 characters: over 100 tokens at four characters a token.
    expect(seen.length).toBe(1);
    expect(seen[0]).toBeGreaterThan(100);
  });

  it('keeps the spend across a restart on a file store', async () => {
    const dir = storeDir();
    const first = costDesk(new FileCheckpointStore(dir), 0.35, 5);
    await first.workflow.session('t1').run('one');
    await first.workflow.session('t1').run('two');
    expect(first.client.calls.length).toBe(2);
    // A new process: a new store object on the same directory, a new workflow and client.
    const second = costDesk(new FileCheckpointStore(dir), 0.35, 5);
    const third = await second.workflow.session('t1').run('three');
    const fourth = await second.workflow.session('t1').run('four');
    expect([third.status, fourth.status, fourth.stopReason]).toEqual([
      'awaiting_input',
      'terminated',
      'Cost budget of $0.35 reached',
    ]);
    expect(second.client.calls.length).toBe(1);
  });

  it('keeps the spend when another process runs the session', async () => {
    const dir = storeDir();
    const here = costDesk(new FileCheckpointStore(dir), 0.25, 5);
    await here.workflow.session('p1').run('one');
    const child = bundledScript('test/support/cost-desk-child.ts');
    const run = (text: string) =>
      JSON.parse(
        execFileSync(process.execPath, [child, dir, 'p1', text, '0.25'], { encoding: 'utf8' }),
      );
    expect(run('two')).toEqual({ status: 'awaiting_input', stopReason: null, calls: 1 });
    expect(run('three')).toEqual({
      status: 'terminated',
      stopReason: 'Cost budget of $0.25 reached',
      calls: 0,
    });
    // And back here: the child's spend is in the store.
    const back = costDesk(new FileCheckpointStore(dir), 0.25, 5);
    expect((await back.workflow.session('p1').run('four')).stopReason).toBe(
      'Cost budget of $0.25 reached',
    );
    expect(back.client.calls.length).toBe(0);
  });

  it('composes: another condition that stops first leaves the spend counted', async () => {
    const { client } = costDesk(undefined, 1, 5);
    const workflow = new HandoffBuilder({ participants: [new Agent({ name: 'desk', client })] })
      .coordinator('desk')
      .withCheckpointing(new MemoryCheckpointStore())
      .withTerminationCondition(
        new MaxMessageTermination(2).or(
          new CostTermination({
            maxUsd: 0.25,
            prices: { 'desk-model': { inputPerMillion: 0, outputPerMillion: 10_000 } },
          }),
        ),
      )
      .build();
    const session = workflow.session('c1');
    const max = 'Maximum number of messages 2 reached, current message count: 2';
    // Each run stops on its answer (the task and the answer are two messages), which resets the
    // message count; the spend stays: $0.20 after two calls, so a third ($0.10 more) is not made.
    expect((await session.run('one')).stopReason).toBe(max);
    expect((await session.run('two')).stopReason).toBe(max);
    expect((await session.run('three')).stopReason).toBe('Cost budget of $0.25 reached');
    expect(client.calls.length).toBe(2);
  });

  it('rejects the run with a ConfigError naming a model without a price, before calling it', async () => {
    const client = new ScriptedChatClient([scriptedText('never')], { model: 'gpt-9' });
    const workflow = new HandoffBuilder({ participants: [new Agent({ name: 'desk', client })] })
      .coordinator('desk')
      .withTerminationCondition(
        new CostTermination({
          maxUsd: 1,
          prices: { 'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 } },
        }),
      )
      .build();
    const error = await workflow
      .session('s')
      .run('hi')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      'CostTermination has no price for model "gpt-9". Add "gpt-9" to `prices`, or a "*" price ' +
        'for any other model.',
    );
    expect(client.calls.length).toBe(0);
  });
});
