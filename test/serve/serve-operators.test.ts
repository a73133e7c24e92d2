// Issue 45: operators see and stream their tenant's sessions; another tenant's stay 404.
import { describe, expect, it } from 'vitest';

import {
  MemoryCheckpointStore,
  type Principal,
  serve,
  type ServeHandler,
} from '../../src/index.js';
import { supervisedDesk } from '../independent/operators/desk.js';

const PRINCIPALS: Record<string, Principal> = {
  customerA: { id: 'cust-1', tenant: 'acme' },
  customerB: { id: 'cust-1', tenant: 'globex' },
  operatorA: { id: 'op-1', tenant: 'acme', roles: ['operator'] },
  operatorB: { id: 'op-2', tenant: 'globex', roles: ['operator'] },
  bystanderA: { id: 'other', tenant: 'acme', roles: ['customer'] },
};

function authenticate(request: Request): Principal | null {
  const token = /^Bearer (\w+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
  return token === undefined ? null : (PRINCIPALS[token] ?? null);
}

function caller(handler: ServeHandler, who: string) {
  return async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await handler.fetch(
      new Request(`http://desk.test${path}`, {
        method,
        headers: {
          authorization: `Bearer ${who}`,
          ...headers,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    const text = await response.text();
    return { status: response.status, text };
  };
}

const READS = [
  '/sessions/a1',
  '/sessions/a1/messages',
  '/sessions/a1/messages?after=0',
  '/sessions/a1/stream',
  '/chat/a1/stream',
];

describe('serve(): operators of a tenant', () => {
  for (const stored of [false, true]) {
    it(`see and stream their tenant's sessions; other tenants' and other principals see 404 (${stored ? 'store' : 'no store'})`, async () => {
      const store = stored ? new MemoryCheckpointStore() : undefined;
      const handler = serve(supervisedDesk(store).workflow, {
        authenticate,
        operators: { roles: ['operator'] },
      });
      const customerA = caller(handler, 'customerA');
      const customerB = caller(handler, 'customerB');
      expect((await customerA('POST', '/sessions', { id: 'a1' })).status).toBe(201);
      expect((await customerA('POST', '/sessions/a1/runs', { input: 'Refund INV-1' })).status).toBe(
        200,
      );
      // The same id in another tenant is another principal: it owns none of acme's sessions.
      expect((await customerB('POST', '/sessions', { id: 'b1' })).status).toBe(201);
      const owner = await Promise.all(READS.map((path) => customerA('GET', path)));

      const operatorA = caller(handler, 'operatorA');
      const seen = await Promise.all(READS.map((path) => operatorA('GET', path)));
      expect(seen).toEqual(owner);
      expect(seen.map((r) => r.status)).toEqual([200, 200, 200, 204, 204]);
      expect(seen[1]?.text).toContain('Refund INV-1');
      // Streamed from the start of the log, as the owner streams it.
      const fromStart = { 'last-event-id': '0.0' };
      const streamed = await operatorA('GET', '/sessions/a1/stream', undefined, fromStart);
      expect(streamed).toEqual(await customerA('GET', '/sessions/a1/stream', undefined, fromStart));
      expect(streamed.text).toContain('event: ToolApprovalRequestEvent');
      expect(
        (await caller(handler, 'operatorB')('GET', '/sessions/a1/stream', undefined, fromStart))
          .status,
      ).toBe(404);
      expect((await operatorA('GET', '/sessions/b1')).status).toBe(404);
      // Seeing is not acting: input, stop and delete stay the owner's.
      expect((await operatorA('POST', '/sessions/a1/runs', { input: 'hi' })).status).toBe(404);
      expect((await operatorA('POST', '/sessions/a1/stop')).status).toBe(404);
      expect((await operatorA('DELETE', '/sessions/a1')).status).toBe(404);

      for (const who of ['operatorB', 'customerB', 'bystanderA']) {
        const other = caller(handler, who);
        const answers = await Promise.all(
          READS.map(async (path) => (await other('GET', path)).status),
        );
        expect([who, answers]).toEqual([who, [404, 404, 404, 404, 404]]);
      }
      expect((await caller(handler, 'operatorB')('GET', '/sessions/b1')).status).toBe(200);
    });
  }

  it('a customer writing while the refund waits for a supervisor is refused, nothing committed', async () => {
    const handler = serve(supervisedDesk(new MemoryCheckpointStore()).workflow, { authenticate });
    const customerA = caller(handler, 'customerA');
    await customerA('POST', '/sessions', { id: 'a1' });
    await customerA('POST', '/sessions/a1/runs', { input: 'Refund INV-1' });
    const before = await customerA('GET', '/sessions/a1/messages');
    const answer = await customerA('POST', '/sessions/a1/runs', { input: 'never mind' });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'not_approver' } });
    expect(await customerA('GET', '/sessions/a1/messages')).toEqual(before);
  });
});
