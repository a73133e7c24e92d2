// Issue 45: a refund that needs a supervisor, over /runs, /chat and /ag-ui; operators per tenant.
import { describe, expect, it } from 'vitest';

import {
  type CheckpointStore,
  MemoryCheckpointStore,
  type Principal,
  serve,
  type ServeHandler,
} from '../../src/index.js';
import { supervisedDesk } from '../independent/operators/desk.js';

const PRINCIPALS: Record<string, Principal> = {
  customer: { id: 'cust-1', tenant: 'acme', roles: ['customer'] },
  supervisor: { id: 'sup-1', tenant: 'acme', roles: ['supervisor'] },
  operator: { id: 'op-1', tenant: 'acme', roles: ['operator'] },
  otherSupervisor: { id: 'sup-9', tenant: 'globex', roles: ['supervisor', 'operator'] },
};

function authenticate(request: Request): Principal | null {
  const token = /^Bearer (\w+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
  return token === undefined ? null : (PRINCIPALS[token] ?? null);
}

function caller(handler: ServeHandler, who: string) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await handler.fetch(
      new Request(`http://desk.test${path}`, {
        method,
        headers: {
          authorization: `Bearer ${who}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    const text = await response.text();
    const json: unknown = response.headers.get('content-type')?.includes('json')
      ? JSON.parse(text)
      : undefined;
    return { status: response.status, json, text };
  };
}

const APPROVE_ON: [route: string, path: string, body: unknown][] = [
  ['/runs', '/sessions/s1/runs', { decisions: [{ callId: 'c1', approve: true }] }],
  [
    '/chat',
    '/chat',
    {
      id: 's1',
      trigger: 'submit-message',
      messages: [
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Refund INV-1' }] },
        {
          id: 'a1',
          role: 'assistant',
          parts: [
            {
              type: 'tool-refund',
              toolCallId: 'c1',
              state: 'approval-responded',
              input: { invoiceId: 'INV-1' },
              approval: { id: 'c1', approved: true },
            },
          ],
        },
      ],
    },
  ],
  [
    '/ag-ui',
    '/ag-ui',
    {
      threadId: 's1',
      runId: 'r2',
      messages: [],
      resume: [{ interruptId: 'c1', status: 'resolved', payload: { approved: true } }],
    },
  ],
];

async function pausedDesk(store?: CheckpointStore) {
  const desk = supervisedDesk(store);
  const handler = serve(desk.workflow, { authenticate, operators: { roles: ['operator'] } });
  const customer = caller(handler, 'customer');
  expect((await customer('POST', '/sessions', { id: 's1' })).status).toBe(201);
  const paused = await customer('POST', '/sessions/s1/runs', { input: 'Refund INV-1' });
  expect(paused.json).toMatchObject({
    status: 'awaiting_input',
    pendingRequest: { kind: 'approval', waitingFor: ['supervisor'] },
  });
  return { ...desk, handler, customer };
}

describe('serve(): a refund that needs a supervisor', () => {
  for (const stored of [false, true]) {
    const where = stored ? 'store' : 'no store';
    it(`the customer's own decision is 403 not_approver on every route, nothing committed (${where})`, async () => {
      const { handler, customer, runs } = await pausedDesk(
        stored ? new MemoryCheckpointStore() : undefined,
      );
      const before = await customer('GET', '/sessions/s1');
      const thread = await customer('GET', '/sessions/s1/messages');
      const operator = caller(handler, 'operator');
      for (const who of [customer, operator]) {
        for (const [route, path, body] of APPROVE_ON) {
          const answer = await who('POST', path, body);
          expect([route, answer.status, answer.json]).toEqual([
            route,
            403,
            {
              error: {
                code: 'not_approver',
                message: expect.stringContaining(
                  'waits for a principal with the role "supervisor"',
                ),
              },
            },
          ]);
        }
      }
      expect(await customer('GET', '/sessions/s1')).toEqual(before);
      expect(await customer('GET', '/sessions/s1/messages')).toEqual(thread);
      expect(runs).toEqual([]);
    });

    it(`the supervisor of the tenant approves and the refund runs once; another tenant's gets 404 (${where})`, async () => {
      const { handler, customer, runs } = await pausedDesk(
        stored ? new MemoryCheckpointStore() : undefined,
      );
      const outsider = caller(handler, 'otherSupervisor');
      for (const [route, path, body] of APPROVE_ON) {
        expect([route, (await outsider('POST', path, body)).status]).toEqual([route, 404]);
      }
      expect((await outsider('GET', '/sessions/s1')).status).toBe(404);
      const supervisor = caller(handler, 'supervisor');
      const seen = await supervisor('GET', '/sessions/s1');
      expect(seen.json).toMatchObject({ status: 'awaiting_input' });
      const approved = await supervisor('POST', '/sessions/s1/runs', APPROVE_ON[0]?.[2]);
      expect(approved.status).toBe(200);
      expect(approved.json).toMatchObject({ status: 'awaiting_input' });
      expect(runs).toEqual(['INV-1']);
      const { json } = await customer('GET', '/sessions/s1/messages');
      const messages = (json as { messages: { type: string; metadata: unknown }[] }).messages;
      expect(messages.filter((m) => m.type === 'ToolApprovalResponseEvent')).toEqual([
        expect.objectContaining({
          metadata: { principal: { id: 'sup-1', roles: ['supervisor'] } },
        }),
      ]);
      // Decided: the supervisor no longer sees the customer's session.
      expect((await supervisor('GET', '/sessions/s1')).status).toBe(404);
    });
  }
});
