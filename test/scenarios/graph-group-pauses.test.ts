// Issue 27 #4 and #13: a graph step in which several nodes pause for approval pauses once, with
// every node's calls in one request; a `when` that throws keeps the answers of its step.
import { describe, expect, it } from 'vitest';

import {
  Agent,
  approve,
  type ChatAgent,
  GraphBuilder,
  MemoryCheckpointStore,
  messageToText,
  reject,
  ScriptedChatClient,
  scriptedText,
  textMessage,
} from '../../src/index.js';
import { calls, deskTools, lines } from './approvals-helpers.js';

/** An agent answering `name saw <n new messages>`. */
function node(name: string): ChatAgent {
  return {
    name,
    description: name,
    respond: async (ctx) => ({
      chatMessage: textMessage({
        source: name,
        content: `${name} saw ${ctx.newMessages.map((m) => m.source).join(',')}`,
      }),
    }),
  };
}

/**
 * intake → [billing, refunds] → summary: billing and refunds each look an invoice up (no
 * approval) and refund it (approval) in one model answer, so both pause in the same step. A
 * workflow object made `later` (another process) has models that only answer after the tools.
 */
function desk(store: MemoryCheckpointStore, later = false) {
  const tools = deskTools();
  const agent = (name: string, invoice: string, prefix: string) =>
    new Agent({
      name,
      client: new ScriptedChatClient([
        ...(later
          ? []
          : [
              calls(
                [`${prefix}1`, 'lookup', { invoiceId: invoice }],
                [`${prefix}2`, 'refund', { invoiceId: invoice }],
              ),
            ]),
        scriptedText(`${name} done.`),
      ]),
      tools: [tools.lookup, tools.refund],
      maxToolIterations: 2,
    });
  const billing = agent('billing', 'INV-1', 'b');
  const refunds = agent('refunds', 'INV-2', 'r');
  const flow = new GraphBuilder({ name: 'desk' })
    .addNode(node('intake'))
    .addNode(billing)
    .addNode(refunds)
    .addNode(node('summary'))
    .addEdge('intake', [billing, refunds])
    .addEdge([billing, refunds], 'summary')
    .withCheckpointing(store)
    .build();
  return { flow, runs: tools.runs };
}

const PAUSED = [
  'TextMessage(user): refund both',
  'TextMessage(intake): intake saw user',
  'ToolCallRequestEvent(billing): lookup({"invoiceId":"INV-1"})\nrefund({"invoiceId":"INV-1"})',
  'ToolCallExecutionEvent(billing): lookup: Invoice INV-1: $80, paid.',
  'ToolApprovalRequestEvent(billing): Approval needed: refund({"invoiceId":"INV-1"})',
  'ToolCallRequestEvent(refunds): lookup({"invoiceId":"INV-2"})\nrefund({"invoiceId":"INV-2"})',
  'ToolCallExecutionEvent(refunds): lookup: Invoice INV-2: $80, paid.',
  'ToolApprovalRequestEvent(refunds): Approval needed: refund({"invoiceId":"INV-2"})',
];

const b2 = { id: 'b2', name: 'refund', arguments: '{"invoiceId":"INV-1"}' };
const r2 = { id: 'r2', name: 'refund', arguments: '{"invoiceId":"INV-2"}' };

describe('a graph step in which two nodes pause for approval', () => {
  it('pauses once with both requests and records every result of the step', async () => {
    const store = new MemoryCheckpointStore();
    const { flow, runs } = desk(store);
    const paused = await flow.session('s').run('refund both');
    expect(paused.status).toBe('awaiting_input');
    expect(lines(paused.messages)).toEqual(PAUSED);
    expect(paused.pendingRequest).toEqual({
      id: expect.any(String),
      agent: 'billing',
      kind: 'approval',
      prompt:
        'Approval needed: refund({"invoiceId":"INV-1"})\n' +
        'Approval needed: refund({"invoiceId":"INV-2"})',
      calls: [b2, r2],
    });
    expect(runs).toEqual(['lookup:INV-1@b1', 'lookup:INV-2@r1']);
    expect(lines(await flow.session('s').messages())).toEqual(PAUSED);
    // A run without a task returns the same request and runs nothing.
    const again = await flow.session('s').run();
    expect(again.pendingRequest).toEqual(paused.pendingRequest);
    expect(again.messages).toEqual([]);
  });

  it('approving both resumes both nodes, in a new workflow object', async () => {
    const store = new MemoryCheckpointStore();
    const first = desk(store);
    const paused = await first.flow.session('s').run('refund both');
    const second = desk(store, true);
    const info = await second.flow.session('s').info();
    expect(info.pendingRequest).toMatchObject({ id: paused.pendingRequest?.id, agent: 'billing' });
    const done = await second.flow.session('s').run([approve('r2'), approve('b2')]);
    expect(lines(done.messages)).toEqual([
      'ToolApprovalResponseEvent(user): Approved call r2',
      'ToolApprovalResponseEvent(user): Approved call b2',
      'ToolCallExecutionEvent(billing): refund: Refunded INV-1.',
      'TextMessage(billing): billing done.',
      'ToolCallExecutionEvent(refunds): refund: Refunded INV-2.',
      'TextMessage(refunds): refunds done.',
      'TextMessage(summary): summary saw user,intake,billing,refunds',
    ]);
    expect(done.stopReason).toBe('Digraph execution is complete');
    expect(second.runs).toEqual(['refund:INV-1@b2', 'refund:INV-2@r2']);
    expect(first.runs).toEqual(['lookup:INV-1@b1', 'lookup:INV-2@r1']);
  });

  it('a decision for one node lets that node go on; the other stays paused', async () => {
    const store = new MemoryCheckpointStore();
    const { flow, runs } = desk(store);
    const paused = await flow.session('s').run('refund both');
    const half = await desk(store, true).flow.session('s').run(reject('b2', 'not yet'));
    expect(half.status).toBe('awaiting_input');
    expect(lines(half.messages)).toEqual([
      'ToolApprovalResponseEvent(user): Rejected call b2: not yet',
      'ToolCallExecutionEvent(billing): refund (error): Tool call "refund" was rejected by the user: not yet',
      'TextMessage(billing): billing done.',
    ]);
    expect(half.pendingRequest).toEqual({
      id: paused.pendingRequest?.id,
      agent: 'refunds',
      kind: 'approval',
      prompt: 'Approval needed: refund({"invoiceId":"INV-2"})',
      calls: [r2],
    });
    const rest = desk(store, true);
    const done = await rest.flow.session('s').run(approve('r2'));
    expect(lines(done.messages)).toEqual([
      'ToolApprovalResponseEvent(user): Approved call r2',
      'ToolCallExecutionEvent(refunds): refund: Refunded INV-2.',
      'TextMessage(refunds): refunds done.',
      'TextMessage(summary): summary saw user,intake,billing,refunds',
    ]);
    expect(runs).toEqual(['lookup:INV-1@b1', 'lookup:INV-2@r1']);
    expect(rest.runs).toEqual(['refund:INV-2@r2']);
  });
  it('a plain text reply rejects every call of the request and both nodes go on', async () => {
    const store = new MemoryCheckpointStore();
    await desk(store).flow.session('s').run('refund both');
    const later = desk(store, true);
    const done = await later.flow.session('s').run('no refunds today');
    expect(lines(done.messages)).toEqual([
      'TextMessage(user): no refunds today',
      'ToolCallExecutionEvent(billing): refund (error): Tool call "refund" was rejected by the user: no refunds today',
      'TextMessage(billing): billing done.',
      'ToolCallExecutionEvent(refunds): refund (error): Tool call "refund" was rejected by the user: no refunds today',
      'TextMessage(refunds): refunds done.',
      'TextMessage(summary): summary saw user,intake,user,billing,refunds',
    ]);
    expect(later.runs).toEqual([]);
  });
});

describe('a graph edge whose `when` throws', () => {
  it('rejects the run with its error and keeps the answers of the step', async () => {
    const flow = new GraphBuilder({ name: 'review' })
      .addNode(node('writer'))
      .addNode(node('critic'))
      .addEdge('writer', 'critic', {
        when: (m) => {
          if (messageToText(m).includes('saw')) throw new Error('no verdict in the answer');
          return true;
        },
      })
      .build();
    await expect(flow.run('draft')).rejects.toThrow(
      'The condition of edge "writer" -> "critic" failed: no verdict in the answer',
    );
    expect(lines(await flow.session('default').messages())).toEqual([
      'TextMessage(user): draft',
      'TextMessage(writer): writer saw user',
    ]);
    // The routing stays as it was: the next run asks the same node again.
    await expect(flow.run()).rejects.toThrow('The condition of edge "writer" -> "critic" failed');
    expect(lines(await flow.session('default').messages())).toEqual([
      'TextMessage(user): draft',
      'TextMessage(writer): writer saw user',
      'TextMessage(writer): writer saw ',
    ]);
  });
});
