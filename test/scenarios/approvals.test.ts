import { describe, expect, it } from 'vitest';

import {
  approve,
  ConfigError,
  Console,
  MemoryCheckpointStore,
  reject,
  scriptedText,
  textMessage,
  tool,
} from '../../src/index.js';
import { toolApprovalResponseEvent } from '../../src/messages/message-factories.js';
import { billingDesk, calls, lines } from './approvals-helpers.js';

const LOOKUP_AND_REFUND = calls(
  ['c1', 'lookup', { invoiceId: '42' }],
  ['c2', 'refund', { invoiceId: '42' }],
);

describe('tool approvals (API.md §10)', () => {
  it('runs the other calls first, then pauses the turn as one committed step', async () => {
    const store = new MemoryCheckpointStore();
    const { workflow, runs, client } = billingDesk([LOOKUP_AND_REFUND], { store });
    const result = await workflow.run('Refund invoice 42');

    expect(lines(result.messages)).toEqual([
      'TextMessage(user): Refund invoice 42',
      'ToolCallRequestEvent(billing): lookup({"invoiceId":"42"})\nrefund({"invoiceId":"42"})',
      'ToolCallExecutionEvent(billing): lookup: Invoice 42: $80, paid.',
      'ToolApprovalRequestEvent(billing): Approval needed: refund({"invoiceId":"42"})',
    ]);
    expect(result.status).toBe('awaiting_input');
    expect(result.stopReason).toBeNull();
    expect(result.pendingRequest).toEqual({
      id: expect.any(String),
      agent: 'billing',
      kind: 'approval',
      prompt: 'Approval needed: refund({"invoiceId":"42"})',
      calls: [{ id: 'c2', name: 'refund', arguments: '{"invoiceId":"42"}' }],
    });
    expect(runs).toEqual(['lookup:42@c1']);
    expect(client.calls).toHaveLength(1);
    const log = await workflow.session('default').checkpoints();
    expect(log.map((c) => c.event)).toEqual(['user_input', 'approval_request:billing']);

    // Another workflow object on the same store sees the same request; nothing is re-run.
    const again = billingDesk([], { store });
    expect(await again.workflow.session('default').info()).toEqual({
      status: 'awaiting_input',
      pendingRequest: result.pendingRequest,
      step: 2,
    });
    const waiting = await again.workflow.run();
    expect([waiting.status, waiting.messages, waiting.pendingRequest]).toEqual([
      'awaiting_input',
      [],
      result.pendingRequest,
    ]);
    expect(again.runs).toEqual([]);
    expect(again.client.calls).toHaveLength(0);
    expect((await again.workflow.session('default').checkpoints()).length).toBe(2);
  });

  it('runs an approved call after the decision and gives its result to the model in the same turn', async () => {
    const { workflow, runs, client } = billingDesk([
      LOOKUP_AND_REFUND,
      scriptedText('Done: refunded.'),
    ]);
    const paused = await workflow.run('Refund invoice 42');
    expect(runs).toEqual(['lookup:42@c1']);
    const result = await workflow.run(approve('c2'));

    expect(lines(result.messages)).toEqual([
      'ToolApprovalResponseEvent(user): Approved call c2',
      'ToolCallExecutionEvent(billing): refund: Refunded 42.',
      'TextMessage(billing): Done: refunded.',
      'UserInputRequestedEvent(billing): Done: refunded.',
    ]);
    expect(result.messages[0]).toMatchObject({ callId: 'c2', approved: true, source: 'user' });
    expect(runs).toEqual(['lookup:42@c1', 'refund:42@c2']);
    expect(result.pendingRequest).toMatchObject({ kind: 'input', agent: 'billing' });
    expect(paused.pendingRequest?.id).not.toEqual(result.pendingRequest?.id);
    expect(client.calls[1]?.messages).toEqual([
      { role: 'user', content: 'Refund invoice 42' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'c1', name: 'lookup', arguments: '{"invoiceId":"42"}' },
          { id: 'c2', name: 'refund', arguments: '{"invoiceId":"42"}' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', content: 'Invoice 42: $80, paid.' },
      { role: 'tool', toolCallId: 'c2', content: 'Refunded 42.' },
    ]);
  });

  it('gives a rejected call the rejection as its error result, with and without a reason', async () => {
    const both = calls(['r1', 'refund', { invoiceId: '1' }], ['r2', 'refund', { invoiceId: '2' }]);
    const { workflow, runs, client } = billingDesk([both, scriptedText('Nothing refunded.')]);
    await workflow.run('Refund 1 and 2');
    const result = await workflow.run([reject('r1', 'too old'), reject('r2')]);

    expect(lines(result.messages)).toEqual([
      'ToolApprovalResponseEvent(user): Rejected call r1: too old',
      'ToolApprovalResponseEvent(user): Rejected call r2',
      'ToolCallExecutionEvent(billing): refund (error): Tool call "refund" was rejected by the user: too old\n' +
        'refund (error): Tool call "refund" was rejected by the user',
      'TextMessage(billing): Nothing refunded.',
      'UserInputRequestedEvent(billing): Nothing refunded.',
    ]);
    expect(runs).toEqual([]);
    expect(client.calls[1]?.messages.slice(-2)).toEqual([
      {
        role: 'tool',
        toolCallId: 'r1',
        content: 'Tool call "refund" was rejected by the user: too old',
      },
      { role: 'tool', toolCallId: 'r2', content: 'Tool call "refund" was rejected by the user' },
    ]);
  });

  it('keeps undecided calls pending: the approved one runs, the model waits for the rest', async () => {
    const both = calls(['r1', 'refund', { invoiceId: '1' }], ['r2', 'refund', { invoiceId: '2' }]);
    const { workflow, runs, client } = billingDesk([both, scriptedText('One refunded.')]);
    const paused = await workflow.run('Refund 1 and 2');
    const partial = await workflow.run(approve('r1'));

    expect(lines(partial.messages)).toEqual([
      'ToolApprovalResponseEvent(user): Approved call r1',
      'ToolCallExecutionEvent(billing): refund: Refunded 1.',
    ]);
    expect(partial.status).toBe('awaiting_input');
    expect(partial.pendingRequest).toEqual({
      ...paused.pendingRequest,
      calls: [{ id: 'r2', name: 'refund', arguments: '{"invoiceId":"2"}' }],
    });
    expect(runs).toEqual(['refund:1@r1']);
    expect(client.calls).toHaveLength(1);

    const idle = await workflow.run();
    expect([idle.status, idle.messages.length, runs.length]).toEqual(['awaiting_input', 0, 1]);

    const done = await workflow.run(reject('r2', 'duplicate'));
    expect(lines(done.messages)).toEqual([
      'ToolApprovalResponseEvent(user): Rejected call r2: duplicate',
      'ToolCallExecutionEvent(billing): refund (error): Tool call "refund" was rejected by the user: duplicate',
      'TextMessage(billing): One refunded.',
      'UserInputRequestedEvent(billing): One refunded.',
    ]);
    expect(runs).toEqual(['refund:1@r1']);
    expect(client.calls[1]?.messages.filter((m) => m.role === 'tool')).toEqual([
      { role: 'tool', toolCallId: 'r1', content: 'Refunded 1.' },
      {
        role: 'tool',
        toolCallId: 'r2',
        content: 'Tool call "refund" was rejected by the user: duplicate',
      },
    ]);
  });

  it('treats a plain reply as rejecting every pending call, and delivers it to the same agent', async () => {
    const { workflow, runs, client } = billingDesk([
      LOOKUP_AND_REFUND,
      scriptedText('Understood, no refund.'),
    ]);
    await workflow.run('Refund invoice 42');
    const result = await workflow.run('No, wait for the manager.');

    expect(lines(result.messages)).toEqual([
      'TextMessage(user): No, wait for the manager.',
      'ToolCallExecutionEvent(billing): refund (error): Tool call "refund" was rejected by the user: No, wait for the manager.',
      'TextMessage(billing): Understood, no refund.',
      'UserInputRequestedEvent(billing): Understood, no refund.',
    ]);
    expect(runs).toEqual(['lookup:42@c1']);
    // Every call is answered before the reply: the request is valid on the wire.
    expect(client.calls[1]?.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'c1', name: 'lookup', arguments: '{"invoiceId":"42"}' },
          { id: 'c2', name: 'refund', arguments: '{"invoiceId":"42"}' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', content: 'Invoice 42: $80, paid.' },
      {
        role: 'tool',
        toolCallId: 'c2',
        content: 'Tool call "refund" was rejected by the user: No, wait for the manager.',
      },
      { role: 'user', content: 'No, wait for the manager.' },
    ]);
  });

  it('rejects an unknown call id with ConfigError before anything is committed', async () => {
    const store = new MemoryCheckpointStore();
    const { workflow, runs } = billingDesk([LOOKUP_AND_REFUND], { store });
    await workflow.run('Refund invoice 42');
    const before = await workflow.session('default').checkpoints();

    const run = workflow.run([approve('c2'), approve('nope')]);
    await expect(run).rejects.toThrow(ConfigError);
    await expect(workflow.run(approve('nope'))).rejects.toThrow(
      'run(): session "default" has no pending tool call "nope"; the calls awaiting approval ' +
        'are "c2" (refund). Pass the id of a call from pendingRequest.calls to approve() or reject().',
    );
    await expect(workflow.run([approve('c2'), reject('c2')])).rejects.toThrow(
      'has no pending tool call "c2" (it was decided twice)',
    );
    expect(await workflow.session('default').checkpoints()).toEqual(before);
    expect(runs).toEqual(['lookup:42@c1']);
    expect((await workflow.session('default').info()).status).toBe('awaiting_input');
  });

  it('rejects a decision while nothing awaits approval', async () => {
    const { workflow } = billingDesk([scriptedText('Hello.')]);
    await workflow.run('Hi');
    await expect(workflow.run(approve('c9'))).rejects.toThrow(
      'run(): session "default" has no pending tool call "c9"; no tool call awaits approval.',
    );
    expect((await workflow.session('default').messages()).length).toBe(3);
  });

  it('decides per call with a needsApproval function of the arguments', async () => {
    const { workflow, runs } = billingDesk(
      [
        calls(
          ['s', 'refund', { invoiceId: '7', amount: 20 }],
          ['b', 'refund', { invoiceId: '8', amount: 90 }],
        ),
        scriptedText('Done.'),
      ],
      { limit: 50 },
    );
    const paused = await workflow.run('Refund 7 and 8');
    expect(runs).toEqual(['refund:7@s']);
    expect(paused.pendingRequest?.calls).toEqual([
      { id: 'b', name: 'refund', arguments: '{"invoiceId":"8","amount":90}' },
    ]);
    await workflow.run(approve('b'));
    expect(runs).toEqual(['refund:7@s', 'refund:8@b']);
  });

  it('accepts a decision built with toolApprovalResponseEvent and validates task decisions', async () => {
    const { workflow } = billingDesk([LOOKUP_AND_REFUND, scriptedText('ok')]);
    await workflow.run('Refund invoice 42');
    await expect(
      workflow.run({ type: 'ToolApprovalResponseEvent', callId: 'c2' } as never),
    ).rejects.toThrow(ConfigError);
    const result = await workflow.run(toolApprovalResponseEvent({ callId: 'c2', approved: true }));
    expect(result.pendingRequest?.kind).toBe('input');
  });

  it('makes a call whose needsApproval throws an error result, and tool() checks the option', async () => {
    const { z } = await import('zod');
    expect(() =>
      tool({
        name: 'x',
        parameters: z.object({}),
        needsApproval: 'yes' as never,
        execute: () => '',
      }),
    ).toThrow(
      'Tool "x" needs `needsApproval` to be a boolean or a function (args, ctx) => boolean, got "yes".',
    );
  });

  it('counts a text reply alongside decisions: decisions first, the text rejects the rest', async () => {
    const both = calls(['r1', 'refund', { invoiceId: '1' }], ['r2', 'refund', { invoiceId: '2' }]);
    const { workflow, runs } = billingDesk([both, scriptedText('ok')]);
    await workflow.run('Refund 1 and 2');
    const result = await workflow.run([
      approve('r1'),
      textMessage({ source: 'user', content: 'not 2' }),
    ]);
    expect(lines(result.messages).slice(0, 3)).toEqual([
      'ToolApprovalResponseEvent(user): Approved call r1',
      'TextMessage(user): not 2',
      'ToolCallExecutionEvent(billing): refund: Refunded 1.\n' +
        'refund (error): Tool call "refund" was rejected by the user: not 2',
    ]);
    expect(runs).toEqual(['refund:1@r1']);
  });

  it('Console shows each call awaiting approval with its arguments and id', async () => {
    const { workflow } = billingDesk([LOOKUP_AND_REFUND]);
    const out: string[] = [];
    await Console(workflow.runStream('Refund invoice 42'), { write: (l) => out.push(l) });
    expect(out.slice(-2)).toEqual([
      '---------- ToolApprovalRequestEvent (billing) ----------\n',
      'Approval needed: refund({"invoiceId":"42"}) [call c2: approve or reject it]\n',
    ]);
  });
});
