// Issue 45: a request names who may answer it — approvers in-process, black-box.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  approve,
  ConfigError,
  MemoryCheckpointStore,
  reject,
  tool,
  type ToolApprovalResponseEvent,
} from '../../../src/index.js';
import { supervisedDesk } from './desk.js';

const customer = { id: 'cust-1', tenant: 'acme', roles: ['customer'] };
const supervisor = { id: 'sup-1', tenant: 'acme', roles: ['supervisor'] };

describe('tool({ approvers })', () => {
  it('the pending request names the roles it waits for', async () => {
    const { workflow } = supervisedDesk();
    const session = workflow.session('s1');
    const paused = await session.run('Refund INV-1');
    expect(paused.pendingRequest).toEqual({
      id: expect.any(String),
      agent: 'desk',
      kind: 'approval',
      prompt: expect.any(String),
      calls: [{ id: 'c1', name: 'refund', arguments: '{"invoiceId":"INV-1"}' }],
      waitingFor: ['supervisor'],
    });
    expect((await session.info()).pendingRequest?.waitingFor).toEqual(['supervisor']);
  });

  it('refuses a decision by a principal without the role, committing nothing', async () => {
    const store = new MemoryCheckpointStore();
    const { workflow, runs } = supervisedDesk(store);
    const session = workflow.session('s2');
    await session.run('Refund INV-1');
    const before = await session.info();
    const refused = session.run(approve('c1'), { principal: customer });
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(session.run(reject('c1'), { principal: customer })).rejects.toThrow(
      'run(): principal "cust-1" may not decide the request of session "s2": it waits for a ' +
        'principal with the role "supervisor". Let one of those decide, or decide without a ' +
        'principal as the application itself.',
    );
    await expect(session.run('never mind', { principal: customer })).rejects.toMatchObject({
      name: 'ConfigError',
      path: 'principal',
    });
    expect(await session.info()).toEqual(before);
    expect(runs).toEqual([]);
  });

  it('a supervisor decides; the decision records who made it; the refund runs once', async () => {
    const store = new MemoryCheckpointStore();
    const { workflow, runs } = supervisedDesk(store);
    const session = workflow.session('s3');
    await session.run('Refund INV-1');
    const done = await session.run(approve('c1'), { principal: supervisor });
    expect(done.status).toBe('awaiting_input');
    expect(runs).toEqual(['INV-1']);
    const decision = (await session.messages()).find(
      (m): m is ToolApprovalResponseEvent => m.type === 'ToolApprovalResponseEvent',
    );
    expect(decision?.metadata.principal).toEqual({ id: 'sup-1', roles: ['supervisor'] });
    // Read back by another process sharing the store.
    const again = supervisedDesk(store).workflow.session('s3');
    const stored = (await again.messages()).find((m) => m.type === 'ToolApprovalResponseEvent');
    expect(stored?.metadata.principal).toEqual({ id: 'sup-1', roles: ['supervisor'] });
  });

  it('without a principal the decision is the application own, and allowed', async () => {
    const { workflow, runs } = supervisedDesk();
    const session = workflow.session('s4');
    await session.run('Refund INV-1');
    await session.run(approve('c1'));
    expect(runs).toEqual(['INV-1']);
    const decision = (await session.messages()).find((m) => m.type === 'ToolApprovalResponseEvent');
    expect(decision?.metadata.principal).toBeUndefined();
  });

  it('rejects approvers that are not roles, or on a tool that needs no approval', () => {
    const base = { name: 'refund', parameters: z.object({}), execute: () => 'ok' };
    expect(() => tool({ ...base, needsApproval: true, approvers: [] })).toThrow(
      'Tool "refund" needs `approvers` to be a role or a non-empty list of roles, e.g. ' +
        '"supervisor" or ["supervisor", "manager"], got [].',
    );
    expect(() => tool({ ...base, approvers: 'supervisor' })).toThrow(
      'Tool "refund" names `approvers` but its calls need no approval; set `needsApproval: ' +
        'true` (or a function), or leave `approvers` out.',
    );
    expect(tool({ ...base, needsApproval: true, approvers: ['a', 'b', 'a'] }).approvers).toEqual([
      'a',
      'b',
    ]);
  });
});
