// Issue 15 / API.md §10: tool approvals in a HandoffBuilder workflow, black-box.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  Agent,
  approve,
  ConfigError,
  FileCheckpointStore,
  HandoffBuilder,
  MemoryCheckpointStore,
  reject,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  type AgentMessage,
  type CheckpointStore,
  type TaskResult,
} from '../../../src/index.js';
import { call, calls, lookupTool, ofType, refundTool, toolReplies, types } from './helpers.js';

function deskWorkflow(
  steps: ConstructorParameters<typeof ScriptedChatClient>[0],
  needsApproval?: Parameters<typeof refundTool>[0],
  store?: CheckpointStore,
) {
  const { refund, runs } = refundTool(needsApproval);
  const { lookup, runs: lookups } = lookupTool();
  const client = new ScriptedChatClient(steps);
  const desk = new Agent({ name: 'desk', client, tools: [lookup, refund], maxToolIterations: 4 });
  let builder = new HandoffBuilder({ name: 'support', participants: [desk] }).coordinator(desk);
  if (store) builder = builder.withCheckpointing(store);
  return { workflow: builder.build(), client, runs, lookups };
}

const REFUND_CALL = call('c2', 'refund', { invoiceId: 'INV-1' });

describe('the approval pause', () => {
  it('needsApproval: true — other calls run first, then the turn pauses with kind "approval"', async () => {
    const { workflow, client, runs, lookups } = deskWorkflow([
      calls(['c1', 'lookup', { invoiceId: 'INV-1' }], ['c2', 'refund', { invoiceId: 'INV-1' }]),
      scriptedText('Refunded.'),
    ]);
    const result = await workflow.run('Refund INV-1');
    expect(result.status).toBe('awaiting_input');
    expect(result.stopReason).toBeNull();
    expect(result.pendingRequest).toEqual({
      id: expect.any(String),
      agent: 'desk',
      kind: 'approval',
      prompt: expect.any(String),
      calls: [REFUND_CALL],
    });
    expect(lookups).toEqual(['INV-1']);
    expect(runs).toEqual([]);
    expect(client.calls).toHaveLength(1);

    const requests = ofType(result.messages, 'ToolApprovalRequestEvent');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ source: 'desk', content: [REFUND_CALL] });
    const executions = ofType(result.messages, 'ToolCallExecutionEvent');
    expect(executions.flatMap((e) => e.content)).toEqual([
      { callId: 'c1', name: 'lookup', content: 'INV-1: $80', isError: false },
    ]);
    const seq = types(result.messages);
    expect(seq.indexOf('ToolCallExecutionEvent')).toBeLessThan(
      seq.indexOf('ToolApprovalRequestEvent'),
    );
    expect(seq[0]).toBe('TextMessage');
    expect(seq.at(-1)).toBe('ToolApprovalRequestEvent');
    // The thread holds the same events.
    const thread = await workflow.session(result.sessionId).messages();
    expect(ofType(thread, 'ToolApprovalRequestEvent')).toEqual(requests);
    expect(ofType(thread, 'ToolCallExecutionEvent')).toEqual(executions);
  });

  it('the stream carries the ToolApprovalRequestEvent and ends with the paused TaskResult', async () => {
    const { workflow } = deskWorkflow([calls(['c2', 'refund', { invoiceId: 'INV-1' }])]);
    const items: (AgentMessage | TaskResult)[] = [];
    for await (const item of workflow.runStream('Refund INV-1')) items.push(item);
    const last = items.at(-1) as TaskResult;
    expect(last.type).toBe('TaskResult');
    expect(last.pendingRequest?.kind).toBe('approval');
    const events = items.filter((m) => m.type === 'ToolApprovalRequestEvent');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ source: 'desk', content: [REFUND_CALL] });
  });

  it.each([
    ['sync', (args: { invoiceId: string }) => args.invoiceId === 'BIG'],
    ['async', async (args: { invoiceId: string }) => args.invoiceId === 'BIG'],
  ])('needsApproval as a %s function of the arguments', async (_label, fn) => {
    const { workflow, runs } = deskWorkflow(
      [
        calls(['s1', 'refund', { invoiceId: 'SMALL' }], ['b1', 'refund', { invoiceId: 'BIG' }]),
        scriptedText('done'),
      ],
      fn,
    );
    const paused = await workflow.run('two refunds');
    expect(paused.pendingRequest?.kind).toBe('approval');
    expect(paused.pendingRequest?.calls).toEqual([call('b1', 'refund', { invoiceId: 'BIG' })]);
    expect(runs).toEqual([{ invoiceId: 'SMALL', callId: 's1' }]);
  });

  it('needsApproval false (function) runs the call without a pause', async () => {
    const { workflow, runs } = deskWorkflow(
      [calls(['c2', 'refund', { invoiceId: 'INV-1' }]), scriptedText('Refunded.')],
      () => false,
    );
    const result = await workflow.run('Refund INV-1');
    expect(result.pendingRequest).toEqual({
      id: expect.any(String),
      agent: 'desk',
      kind: 'input',
      prompt: 'Refunded.',
    });
    expect(runs).toEqual([{ invoiceId: 'INV-1', callId: 'c2' }]);
  });

  it('an ordinary pause has kind "input"', async () => {
    const { workflow } = deskWorkflow([scriptedText('How can I help?')]);
    const result = await workflow.run('hi');
    expect(result.status).toBe('awaiting_input');
    expect(result.pendingRequest?.kind).toBe('input');
    expect(result.pendingRequest?.prompt).toBe('How can I help?');
  });
});

describe('deciding', () => {
  it('approve(): the call runs then and its result reaches the model in the same turn', async () => {
    const { workflow, client, runs } = deskWorkflow([
      calls(['c1', 'lookup', { invoiceId: 'INV-1' }], ['c2', 'refund', { invoiceId: 'INV-1' }]),
      scriptedText('Refunded.'),
    ]);
    await workflow.run('Refund INV-1');
    expect(runs).toEqual([]);
    const result = await workflow.run(approve('c2'));
    expect(runs).toEqual([{ invoiceId: 'INV-1', callId: 'c2' }]);
    expect(client.calls).toHaveLength(2);
    expect(toolReplies(client.calls[1]!)).toEqual([
      { toolCallId: 'c1', content: 'INV-1: $80' },
      { toolCallId: 'c2', content: 'refunded INV-1' },
    ]);
    expect(result.status).toBe('awaiting_input');
    expect(result.pendingRequest).toEqual({
      id: expect.any(String),
      agent: 'desk',
      kind: 'input',
      prompt: 'Refunded.',
    });
    const responses = ofType(result.messages, 'ToolApprovalResponseEvent');
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({ source: 'user', callId: 'c2', approved: true });
    const thread = await workflow.session(result.sessionId).messages();
    expect(ofType(thread, 'ToolApprovalResponseEvent')).toHaveLength(1);
    const results = ofType(thread, 'ToolCallExecutionEvent').flatMap((e) => e.content);
    expect(results).toEqual([
      { callId: 'c1', name: 'lookup', content: 'INV-1: $80', isError: false },
      { callId: 'c2', name: 'refund', content: 'refunded INV-1', isError: false },
    ]);
  });

  it('reject(callId, reason): the error result names the tool and the reason', async () => {
    const { workflow, client, runs } = deskWorkflow([
      calls(['c2', 'refund', { invoiceId: 'INV-1' }]),
      scriptedText('Not refunded.'),
    ]);
    await workflow.run('Refund INV-1');
    const result = await workflow.run(reject('c2', 'too large'));
    expect(runs).toEqual([]);
    expect(toolReplies(client.calls[1]!)).toEqual([
      { toolCallId: 'c2', content: 'Tool call "refund" was rejected by the user: too large' },
    ]);
    expect(ofType(result.messages, 'ToolCallExecutionEvent').flatMap((e) => e.content)).toEqual([
      {
        callId: 'c2',
        name: 'refund',
        content: 'Tool call "refund" was rejected by the user: too large',
        isError: true,
      },
    ]);
    expect(ofType(result.messages, 'ToolApprovalResponseEvent')[0]).toMatchObject({
      source: 'user',
      callId: 'c2',
      approved: false,
      reason: 'too large',
    });
  });

  it('reject(callId) without a reason', async () => {
    const { workflow, client } = deskWorkflow([
      calls(['c2', 'refund', { invoiceId: 'INV-1' }]),
      scriptedText('Not refunded.'),
    ]);
    await workflow.run('Refund INV-1');
    await workflow.run(reject('c2'));
    expect(toolReplies(client.calls[1]!)).toEqual([
      { toolCallId: 'c2', content: 'Tool call "refund" was rejected by the user' },
    ]);
  });

  it('an array of decisions in one run; undecided calls stay pending and the model waits', async () => {
    const { workflow, client, runs } = deskWorkflow([
      calls(
        ['a', 'refund', { invoiceId: 'A' }],
        ['b', 'refund', { invoiceId: 'B' }],
        ['c', 'refund', { invoiceId: 'C' }],
      ),
      scriptedText('Done.'),
    ]);
    await workflow.run('three refunds');
    const partial = await workflow.run([approve('a'), reject('b', 'no')]);
    expect(partial.status).toBe('awaiting_input');
    expect(partial.pendingRequest?.kind).toBe('approval');
    expect(partial.pendingRequest?.agent).toBe('desk');
    expect(partial.pendingRequest?.calls).toEqual([call('c', 'refund', { invoiceId: 'C' })]);
    expect(client.calls).toHaveLength(1);
    expect(runs.filter((r) => r.invoiceId !== 'A')).toEqual([]);

    const done = await workflow.run(approve('c'));
    expect(done.pendingRequest?.kind).toBe('input');
    expect(client.calls).toHaveLength(2);
    expect(runs.map((r) => r.callId).sort()).toEqual(['a', 'c']);
    expect(toolReplies(client.calls[1]!)).toEqual([
      { toolCallId: 'a', content: 'refunded A' },
      { toolCallId: 'b', content: 'Tool call "refund" was rejected by the user: no' },
      { toolCallId: 'c', content: 'refunded C' },
    ]);
  });

  it('run() with no task while pending returns the same request and runs nothing', async () => {
    const { workflow, client, runs } = deskWorkflow([
      calls(['c2', 'refund', { invoiceId: 'INV-1' }]),
    ]);
    const paused = await workflow.run('Refund INV-1');
    const before = await workflow.session(paused.sessionId).messages();
    const again = await workflow.run();
    expect(again.status).toBe('awaiting_input');
    expect(again.pendingRequest).toEqual(paused.pendingRequest);
    expect(client.calls).toHaveLength(1);
    expect(runs).toEqual([]);
    expect(await workflow.session(paused.sessionId).messages()).toEqual(before);
  });

  it('an unknown callId rejects with ConfigError before anything is committed', async () => {
    const store = new MemoryCheckpointStore();
    const { workflow, client, runs } = deskWorkflow(
      [calls(['c2', 'refund', { invoiceId: 'INV-1' }]), scriptedText('ok')],
      true,
      store,
    );
    const session = workflow.session('unknown-id');
    const paused = await session.run('Refund INV-1');
    const checkpoints = await session.checkpoints();
    const thread = await session.messages();
    await expect(session.run(approve('nope'))).rejects.toBeInstanceOf(ConfigError);
    await expect(session.run([approve('c2'), reject('nope')])).rejects.toBeInstanceOf(ConfigError);
    expect(await session.checkpoints()).toEqual(checkpoints);
    expect(await session.messages()).toEqual(thread);
    expect(runs).toEqual([]);
    expect(client.calls).toHaveLength(1);
    const info = await session.info();
    expect(info.status).toBe('awaiting_input');
    expect(info.pendingRequest).toMatchObject({
      id: paused.pendingRequest!.id,
      agent: 'desk',
      prompt: paused.pendingRequest!.prompt,
    });
    // Still decidable afterwards.
    await session.run(approve('c2'));
    expect(runs).toEqual([{ invoiceId: 'INV-1', callId: 'c2' }]);
  });
});

describe('routing around the pause', () => {
  function twoAgents() {
    const { refund, runs } = refundTool();
    const triageClient = new ScriptedChatClient([scriptedToolCall('handoff_to_billing', {}, 'h0')]);
    const billingClient = new ScriptedChatClient([
      calls(['c2', 'refund', { invoiceId: 'INV-1' }]),
      scriptedText('Understood, no refund.'),
    ]);
    const triage = new Agent({ name: 'triage', client: triageClient });
    const billing = new Agent({
      name: 'billing',
      client: billingClient,
      tools: [refund],
      maxToolIterations: 3,
    });
    const workflow = new HandoffBuilder({ participants: [triage, billing] })
      .coordinator(triage)
      .build();
    return { workflow, triageClient, billingClient, runs };
  }

  it('a plain text reply rejects every pending call with its text and goes to the paused agent', async () => {
    const { workflow, triageClient, billingClient, runs } = twoAgents();
    const paused = await workflow.run('Refund INV-1');
    expect(paused.pendingRequest).toMatchObject({ agent: 'billing', kind: 'approval' });
    const result = await workflow.run('actually keep it');
    expect(runs).toEqual([]);
    expect(triageClient.calls).toHaveLength(1);
    expect(billingClient.calls).toHaveLength(2);
    expect(toolReplies(billingClient.calls[1]!)).toEqual([
      {
        toolCallId: 'c2',
        content: 'Tool call "refund" was rejected by the user: actually keep it',
      },
    ]);
    const last = billingClient.calls[1]!.messages as { role: string; content?: unknown }[];
    expect(last.some((m) => m.role === 'user' && m.content === 'actually keep it')).toBe(true);
    expect(result.pendingRequest).toMatchObject({
      agent: 'billing',
      kind: 'input',
      prompt: 'Understood, no refund.',
    });
    const thread = await workflow.session(result.sessionId).messages();
    expect(
      ofType(thread, 'TextMessage')
        .filter((m) => m.source === 'user')
        .map((m) => m.content),
    ).toEqual(['Refund INV-1', 'actually keep it']);
  });

  it('a handoff in the same response waits for the decision', async () => {
    const { refund, runs } = refundTool();
    const triageClient = new ScriptedChatClient([
      calls(['c1', 'refund', { invoiceId: 'INV-1' }], ['h1', 'handoff_to_billing', {}]),
    ]);
    const billingClient = new ScriptedChatClient([scriptedText('Billing here.')]);
    const triage = new Agent({
      name: 'triage',
      client: triageClient,
      tools: [refund],
      maxToolIterations: 3,
    });
    const billing = new Agent({ name: 'billing', client: billingClient });
    const workflow = new HandoffBuilder({ participants: [triage, billing] })
      .coordinator(triage)
      .build();

    const paused = await workflow.run('Refund and transfer');
    expect(paused.pendingRequest).toMatchObject({
      agent: 'triage',
      kind: 'approval',
      calls: [call('c1', 'refund', { invoiceId: 'INV-1' })],
    });
    expect(ofType(paused.messages, 'HandoffMessage')).toEqual([]);
    expect(billingClient.calls).toHaveLength(0);

    const result = await workflow.run(approve('c1'));
    expect(runs).toEqual([{ invoiceId: 'INV-1', callId: 'c1' }]);
    expect(billingClient.calls).toHaveLength(1);
    expect(triageClient.calls).toHaveLength(1);
    const seq = types(result.messages);
    expect(seq.indexOf('ToolApprovalResponseEvent')).toBeLessThan(seq.indexOf('HandoffMessage'));
    expect(ofType(result.messages, 'HandoffMessage')).toMatchObject([
      { source: 'triage', target: 'billing' },
    ]);
    expect(result.pendingRequest).toMatchObject({
      agent: 'billing',
      kind: 'input',
      prompt: 'Billing here.',
    });
  });
});

describe('across restarts', () => {
  const stores: [string, () => Promise<{ store: CheckpointStore; close: () => Promise<void> }>][] =
    [
      [
        'MemoryCheckpointStore',
        async () => {
          const store = new MemoryCheckpointStore();
          return { store, close: () => store.close() };
        },
      ],
      [
        'FileCheckpointStore',
        async () => {
          const dir = await mkdtemp(join(tmpdir(), 'baton-i15-'));
          const store = new FileCheckpointStore(dir);
          return {
            store,
            close: async () => {
              await store.close();
              await rm(dir, { recursive: true, force: true });
            },
          };
        },
      ],
    ];

  it.each(stores)(
    '%s: a second workflow object sees the request and runs the tool once with ctx.callId',
    async (_n, open) => {
      const { store, close } = await open();
      try {
        const first = deskWorkflow(
          [
            calls(
              ['c1', 'lookup', { invoiceId: 'INV-1' }],
              ['c2', 'refund', { invoiceId: 'INV-1' }],
            ),
          ],
          true,
          store,
        );
        const paused = await first.workflow.session('restart').run('Refund INV-1');
        const committed = await first.workflow.session('restart').messages();

        // "Another process": fresh agents, tools, client and workflow on the same store.
        const second = deskWorkflow([scriptedText('Refunded.')], true, store);
        const session = second.workflow.session('restart');
        const info = await session.info();
        expect(info.status).toBe('awaiting_input');
        expect(info.pendingRequest).toMatchObject({
          id: paused.pendingRequest!.id,
          agent: 'desk',
          prompt: paused.pendingRequest!.prompt,
        });
        expect(await session.messages()).toEqual(committed);
        const again = await session.run();
        expect(again.pendingRequest).toEqual(paused.pendingRequest);
        expect(second.client.calls).toHaveLength(0);

        const result = await session.run(approve('c2'));
        expect(result.pendingRequest).toMatchObject({ kind: 'input', prompt: 'Refunded.' });
        expect(first.runs).toEqual([]);
        expect(second.runs).toEqual([{ invoiceId: 'INV-1', callId: 'c2' }]);
        expect(second.lookups).toEqual([]);
        expect(first.lookups).toEqual(['INV-1']);
        expect(toolReplies(second.client.calls[0]!)).toEqual([
          { toolCallId: 'c1', content: 'INV-1: $80' },
          { toolCallId: 'c2', content: 'refunded INV-1' },
        ]);
        const thread = await session.messages();
        const refundResults = ofType(thread, 'ToolCallExecutionEvent')
          .flatMap((e) => e.content)
          .filter((r) => r.callId === 'c2');
        expect(refundResults).toEqual([
          { callId: 'c2', name: 'refund', content: 'refunded INV-1', isError: false },
        ]);
        expect(ofType(thread, 'ToolApprovalRequestEvent')).toHaveLength(1);
        expect(ofType(thread, 'ToolApprovalResponseEvent')).toHaveLength(1);
        // The first object, reading the store again, runs nothing more.
        const third = deskWorkflow([], true, store);
        await third.workflow.session('restart').run();
        expect(third.runs).toEqual([]);
        expect(third.client.calls).toHaveLength(0);
      } finally {
        await close();
      }
    },
  );
});
