import { z } from 'zod';
import { describe, expect, it } from 'vitest';

import {
  Agent,
  approve,
  type ChatAgent,
  FunctionalTermination,
  guardrail,
  MemoryCheckpointStore,
  RoundRobinGroupChat,
  ScriptedChatClient,
  SelectorGroupChat,
  scriptedText,
  tool,
} from '../../src/index.js';
import { calls } from './approvals-helpers.js';

/** A promise that never settles: a user callback that hangs. */
const never = <T>(): Promise<T> => new Promise<T>(() => {});

function team(client: ScriptedChatClient, options: Record<string, unknown> = {}) {
  const store = new MemoryCheckpointStore();
  const workflow = new RoundRobinGroupChat(
    [new Agent({ name: 'a', client, ...(options.agent as object) })],
    { maxTurns: 1, checkpointStore: store, ...(options.team as object) },
  );
  return { store, workflow };
}

describe('a user callback that never settles (issue 27 #5)', () => {
  it('needsApproval: the run ends cancelled and the session is free again', async () => {
    const controller = new AbortController();
    const refund = tool({
      name: 'refund',
      description: 'Refunds an invoice.',
      parameters: z.object({}),
      needsApproval: () => {
        controller.abort();
        return never();
      },
      execute: () => 'refunded',
    });
    const client = new ScriptedChatClient([calls(['c1', 'refund']), scriptedText('again')]);
    const { store, workflow } = team(client, { agent: { tools: [refund] } });
    const result = await workflow.session('s').run('go', { signal: controller.signal });
    expect([result.status, result.stopReason]).toEqual(['cancelled', null]);
    expect(await workflow.session('s').info()).toEqual({ status: 'cancelled', step: 2 });
    expect(await store.leaseHolder('s')).toBe(null);
  });

  it('an input guardrail: the run ends cancelled, the task is not recorded', async () => {
    const controller = new AbortController();
    const hang = guardrail({
      name: 'hang',
      check: () => {
        controller.abort();
        return never();
      },
    });
    const client = new ScriptedChatClient([scriptedText('hello')]);
    const { store, workflow } = team(client, { team: { guardrails: { input: [hang] } } });
    const result = await workflow.session('s').run('go', { signal: controller.signal });
    expect([result.status, result.stopReason, result.messages]).toEqual(['cancelled', null, []]);
    expect(client.calls.length).toBe(0);
    expect(await workflow.session('s').info()).toEqual({ status: 'cancelled', step: 1 });
    expect(await store.leaseHolder('s')).toBe(null);
  });

  it('an output guardrail: the run ends cancelled, the answer is not recorded', async () => {
    const controller = new AbortController();
    const hang = guardrail({
      name: 'hang',
      check: () => {
        controller.abort();
        return never();
      },
    });
    const client = new ScriptedChatClient([scriptedText('hello')]);
    const { store, workflow } = team(client, { team: { guardrails: { output: [hang] } } });
    const result = await workflow.session('s').run('go', { signal: controller.signal });
    expect([result.status, result.stopReason]).toEqual(['cancelled', null]);
    expect(result.messages.map((m) => m.type)).toEqual(['TextMessage']);
    expect((await workflow.session('s').messages()).map((m) => m.source)).toEqual(['user']);
    expect(await workflow.session('s').info()).toEqual({ status: 'cancelled', step: 2 });
    expect(await store.leaseHolder('s')).toBe(null);
  });
});

describe('the other user callbacks a run awaits, never settling', () => {
  it('a termination condition: the answer it checks is not recorded', async () => {
    const controller = new AbortController();
    const client = new ScriptedChatClient([scriptedText('hello')]);
    const condition = new FunctionalTermination((messages) => {
      if (messages.every((m) => m.source === 'user')) return false;
      controller.abort();
      return never<boolean>();
    });
    const { store, workflow } = team(client, { team: { terminationCondition: condition } });
    const result = await workflow.session('s').run('go', { signal: controller.signal });
    expect([result.status, client.calls.length]).toEqual(['cancelled', 1]);
    expect((await workflow.session('s').messages()).map((m) => m.source)).toEqual(['user']);
    expect(await store.leaseHolder('s')).toBe(null);
  });

  it("a custom agent's respond() and a selector function", async () => {
    const controller = new AbortController();
    const stuck: ChatAgent = {
      name: 'stuck',
      description: 'Never answers.',
      respond: () => {
        controller.abort();
        return never();
      },
    };
    const first = new RoundRobinGroupChat([stuck], { maxTurns: 1 });
    const answered = await first.run('go', { signal: controller.signal });
    expect(answered.status).toBe('cancelled');

    const choosing = new AbortController();
    const selector = new SelectorGroupChat(
      [stuck, new Agent({ name: 'b', client: new ScriptedChatClient([]) })],
      {
        selectorFunc: () => {
          choosing.abort();
          return never<string>();
        },
        maxTurns: 1,
      },
    );
    const chosen = await selector.run('go', { signal: choosing.signal });
    expect([chosen.status, (await selector.session('default').info()).status]).toEqual([
      'cancelled',
      'cancelled',
    ]);
  });
});

describe('leaving runStream() early (issue 27 #6)', () => {
  it('cancels the run; the session runs again afterwards', async () => {
    const steps = Array.from({ length: 20 }, (_, i) => scriptedText(`answer ${i + 1}`));
    const client = new ScriptedChatClient(steps);
    const { store, workflow } = team(client, { team: { maxTurns: 19 } });
    const session = workflow.session('s');
    const seen: string[] = [];
    for await (const item of session.runStream('go')) {
      if (item.type === 'TaskResult') throw new Error('the run should not end on its own');
      seen.push(`${item.source}: ${'content' in item ? String(item.content) : ''}`);
      if (item.source === 'a') break;
    }
    // The second call had started when the consumer left; its answer is not recorded.
    expect(seen).toEqual(['user: go', 'a: answer 1']);
    expect(client.calls.length).toBe(2);
    expect(await session.info()).toEqual({ status: 'cancelled', step: 3 });
    expect(await store.leaseHolder('s')).toBe(null);

    const next = await session.run();
    expect([next.status, next.stopReason, next.messages.length, client.calls.length]).toEqual([
      'terminated',
      'Maximum number of turns 19 reached.',
      18,
      20,
    ]);
  });
});

describe('aborting while an approved call of a paused turn runs (issue 27 #7)', () => {
  it('ends the run cancelled; the other call still awaits its decision', async () => {
    const controller = new AbortController();
    const runs: string[] = [];
    const refund = tool({
      name: 'refund',
      description: 'Refunds an invoice.',
      parameters: z.object({ invoiceId: z.string() }),
      needsApproval: true,
      // Runs again after a cancel (API.md §17); a "once" tool would be in doubt.
      effect: 'idempotent',
      execute: ({ invoiceId }) => {
        runs.push(invoiceId);
        if (runs.length === 1) {
          controller.abort();
          return never<string>();
        }
        return `Refunded ${invoiceId}.`;
      },
    });
    const client = new ScriptedChatClient([
      calls(['c1', 'refund', { invoiceId: 'A' }], ['c2', 'refund', { invoiceId: 'B' }]),
      scriptedText('Both refunded.'),
    ]);
    const { workflow } = team(client, { agent: { tools: [refund], maxToolIterations: 2 } });
    const session = workflow.session('s');
    const paused = await session.run('refund A and B');
    expect(paused.pendingRequest?.calls?.map((c) => c.id)).toEqual(['c1', 'c2']);

    const cancelled = await session.run(approve('c1'), { signal: controller.signal });
    expect([cancelled.status, cancelled.stopReason, runs]).toEqual(['cancelled', null, ['A']]);
    expect(await session.info()).toEqual({ status: 'cancelled', step: 4 });

    // The next run redoes what was interrupted: the approved call runs, the other still waits.
    const resumed = await session.run();
    expect([resumed.status, resumed.pendingRequest?.calls?.map((c) => c.id), runs]).toEqual([
      'awaiting_input',
      ['c2'],
      ['A', 'A'],
    ]);
    const done = await session.run(approve('c2'));
    expect([done.status, runs]).toEqual(['terminated', ['A', 'A', 'B']]);
    expect(done.messages.at(-1)).toMatchObject({ type: 'TextMessage', content: 'Both refunded.' });
  });
});
