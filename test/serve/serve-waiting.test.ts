// Issue 45: the customer sees that the refund waits for a supervisor, in useChat and AG-UI.
import { EventSchemas } from '@ag-ui/core/schemas';
import { describe, expect, it } from 'vitest';

import { MemoryCheckpointStore, type Principal, serve } from '../../src/index.js';
import { supervisedDesk } from '../independent/operators/desk.js';
import { parseSse } from './serve-http.js';

const customer: Principal = { id: 'cust-1', tenant: 'acme' };

function post(handler: ReturnType<typeof serve>, path: string, body: unknown) {
  return handler.fetch(
    new Request(`http://desk.test${path}`, {
      method: 'POST',
      headers: { authorization: 'Bearer x', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

describe('serve(): a request that waits for someone else', () => {
  it('the UI message stream ends with pendingRequest.waitingFor in its metadata', async () => {
    const handler = serve(supervisedDesk(new MemoryCheckpointStore()).workflow, {
      authenticate: () => customer,
    });
    const answer = await post(handler, '/chat', {
      id: 'c1',
      trigger: 'submit-message',
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Refund INV-1' }] }],
    });
    const chunks = parseSse(await answer.text())
      .filter((e) => e.data.startsWith('{'))
      .map((e) => JSON.parse(e.data) as { type: string; messageMetadata?: unknown });
    expect(chunks.filter((c) => c.type === 'message-metadata').at(-1)?.messageMetadata).toEqual({
      status: 'awaiting_input',
      pendingRequest: {
        id: expect.any(String),
        agent: 'desk',
        kind: 'approval',
        prompt: expect.any(String),
        calls: [{ id: 'c1', name: 'refund', arguments: '{"invoiceId":"INV-1"}' }],
        waitingFor: ['supervisor'],
      },
    });
  });

  it('AG-UI sends a CUSTOM baton.waiting event before RUN_FINISHED', async () => {
    const handler = serve(supervisedDesk().workflow, { authenticate: () => customer });
    const answer = await post(handler, '/ag-ui', {
      threadId: 't1',
      runId: 'r1',
      messages: [{ id: 'u1', role: 'user', content: 'Refund INV-1' }],
    });
    const events = parseSse(await answer.text()).map(
      (e) => EventSchemas.parse(JSON.parse(e.data)) as { type: string; name?: string },
    );
    const waiting = events.findIndex((e) => e.type === 'CUSTOM' && e.name === 'baton.waiting');
    expect(events[waiting]).toEqual({
      type: 'CUSTOM',
      name: 'baton.waiting',
      value: { requestId: expect.any(String), kind: 'approval', waitingFor: ['supervisor'] },
    });
    expect(events.slice(waiting + 1).map((e) => e.type)).toEqual(['RUN_FINISHED']);
  });
});
