import { describe, expect, it } from 'vitest';

import type { MemoryCheckpointStore } from '../../src/index.js';
import {
  Agent,
  approve,
  HandoffBuilder,
  reject,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  SelectorGroupChat,
  Swarm,
  TextMessageTermination,
} from '../../src/index.js';
import { calls, deskTools, lines } from './approvals-helpers.js';

describe('approvals with a handoff in the same response', () => {
  function desk(store?: MemoryCheckpointStore) {
    const tools = deskTools();
    const triageClient = new ScriptedChatClient([
      calls(['h1', 'handoff_to_billing'], ['t1', 'refund', { invoiceId: '9' }]),
    ]);
    const billingClient = new ScriptedChatClient([scriptedText('Billing here.')]);
    const triage = new Agent({ name: 'triage', client: triageClient, tools: [tools.refund] });
    const billing = new Agent({ name: 'billing', client: billingClient });
    const builder = new HandoffBuilder({ participants: [triage, billing] }).coordinator(triage);
    if (store !== undefined) builder.withCheckpointing(store);
    return { ...tools, triageClient, billingClient, workflow: builder.build() };
  }

  it('waits for the decision before handing off, then hands off with the result', async () => {
    const { workflow, runs, billingClient } = desk();
    const paused = await workflow.run('Refund 9 and get me billing');
    expect(lines(paused.messages)).toEqual([
      'TextMessage(user): Refund 9 and get me billing',
      'ToolCallRequestEvent(triage): handoff_to_billing({})\nrefund({"invoiceId":"9"})',
      'ToolApprovalRequestEvent(triage): Approval needed: refund({"invoiceId":"9"})',
    ]);
    expect(paused.pendingRequest?.calls?.map((c) => c.id)).toEqual(['t1']);
    expect(billingClient.calls).toHaveLength(0);

    const result = await workflow.run(approve('t1'));
    expect(lines(result.messages)).toEqual([
      'ToolApprovalResponseEvent(user): Approved call t1',
      'ToolCallExecutionEvent(triage): handoff_to_billing: Transferred to billing, adopting the role of billing immediately.\n' +
        'refund: Refunded 9.',
      'HandoffMessage(triage): Transferred to billing, adopting the role of billing immediately.',
      'TextMessage(billing): Billing here.',
      'UserInputRequestedEvent(billing): Billing here.',
    ]);
    expect(runs).toEqual(['refund:9@t1']);
    // Billing sees the refund and its result (the handoff's context), each call answered once.
    expect(billingClient.calls[0]?.messages).toEqual([
      { role: 'user', content: 'Refund 9 and get me billing' },
      { role: 'user', content: '[triage] called refund({"invoiceId":"9"}) -> Refunded 9.' },
      {
        role: 'user',
        content:
          '[handoff from triage to billing]: ' +
          'Transferred to billing, adopting the role of billing immediately.',
      },
    ]);
  });

  it('hands off after a rejection too', async () => {
    const { workflow, runs } = desk();
    await workflow.run('Refund 9 and get me billing');
    const result = await workflow.run(reject('t1', 'no'));
    expect(lines(result.messages).slice(1, 3)).toEqual([
      'ToolCallExecutionEvent(triage): handoff_to_billing: Transferred to billing, adopting the role of billing immediately.\n' +
        'refund (error): Tool call "refund" was rejected by the user: no',
      'HandoffMessage(triage): Transferred to billing, adopting the role of billing immediately.',
    ]);
    expect(runs).toEqual([]);
  });
});

describe('approvals in every team', () => {
  function refunder(name: string, steps: ConstructorParameters<typeof ScriptedChatClient>[0]) {
    const tools = deskTools();
    const client = new ScriptedChatClient(steps);
    return {
      ...tools,
      client,
      agent: new Agent({ name, client, tools: [tools.refund], maxToolIterations: 2 }),
    };
  }

  it('RoundRobinGroupChat: only the paused agent continues its turn', async () => {
    const a = refunder('a', [calls(['x', 'refund', { invoiceId: '1' }]), scriptedText('a done')]);
    const b = refunder('b', [scriptedText('b done')]);
    const team = new RoundRobinGroupChat([a.agent, b.agent], {
      terminationCondition: new TextMessageTermination('b'),
    });
    const paused = await team.run('go');
    expect([paused.status, paused.pendingRequest?.agent, paused.pendingRequest?.kind]).toEqual([
      'awaiting_input',
      'a',
      'approval',
    ]);
    const result = await team.run(approve('x'));
    expect(lines(result.messages)).toEqual([
      'ToolApprovalResponseEvent(user): Approved call x',
      'ToolCallExecutionEvent(a): refund: Refunded 1.',
      'TextMessage(a): a done',
      'TextMessage(b): b done',
    ]);
    expect([result.status, result.stopReason]).toEqual([
      'terminated',
      "Text message received from 'b'",
    ]);
    expect(a.runs).toEqual(['refund:1@x']);
  });

  it('SelectorGroupChat: the selector is not asked again while the turn is paused', async () => {
    const a = refunder('a', [calls(['x', 'refund', { invoiceId: '1' }]), scriptedText('a done')]);
    const b = refunder('b', []);
    const picks: number[] = [];
    const team = new SelectorGroupChat([a.agent, b.agent], {
      selectorFunc: (thread) => {
        picks.push(thread.length);
        return 'a';
      },
      terminationCondition: new TextMessageTermination('a'),
    });
    await team.run('go');
    const result = await team.run('Go ahead but only half.');
    expect(lines(result.messages)).toEqual([
      'TextMessage(user): Go ahead but only half.',
      'ToolCallExecutionEvent(a): refund (error): Tool call "refund" was rejected by the user: Go ahead but only half.',
      'TextMessage(a): a done',
    ]);
    expect(picks).toEqual([1]);
    expect(result.stopReason).toBe("Text message received from 'a'");
  });

  it('Swarm: the paused agent keeps the floor and can hand off after the decision', async () => {
    const tools = deskTools();
    const aClient = new ScriptedChatClient([
      calls(['x', 'refund', { invoiceId: '3' }], ['h', 'handoff_to_b']),
    ]);
    const a = new Agent({ name: 'a', client: aClient, tools: [tools.refund], handoffs: ['b'] });
    const b = new Agent({ name: 'b', client: new ScriptedChatClient([scriptedText('b here')]) });
    const team = new Swarm([a, b], { terminationCondition: new TextMessageTermination('b') });
    const paused = await team.run('go');
    expect(paused.pendingRequest?.calls?.map((c) => c.name)).toEqual(['refund']);
    const result = await team.run(approve('x'));
    expect(lines(result.messages)).toEqual([
      'ToolApprovalResponseEvent(user): Approved call x',
      'ToolCallExecutionEvent(a): refund: Refunded 3.\n' +
        'handoff_to_b: Transferred to b, adopting the role of b immediately.',
      'HandoffMessage(a): Transferred to b, adopting the role of b immediately.',
      'TextMessage(b): b here',
    ]);
    expect(tools.runs).toEqual(['refund:3@x']);
  });
});
