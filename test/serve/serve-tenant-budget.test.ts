// API.md §26 with §15: `serve(workflow, { budgets: { perTenantPerDayUsd } })`. A tenant's sessions
// share the day's cap; the run that would pass it pauses with a "budget" request, which an
// approval with `amountUsd` answers by giving the tenant that much more today.
import { afterEach, describe, expect, it } from 'vitest';

import { ConfigError, MemoryCheckpointStore, serve } from '../../src/index.js';
import type { Listening } from '../../src/serve/node-listen.js';
import { costDesk } from '../support/cost-desk.js';
import { client, listen, OTHER, twoTenants } from './serve-http.js';

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('serve(): a tenant’s daily budget', () => {
  it('pauses the run that would pass the cap; other tenants go on; an approval raises it', async () => {
    // Each call reserves and costs $0.10; the sessions' own budgets are far away.
    const { workflow, client: model } = costDesk(new MemoryCheckpointStore(), 100, 10);
    const handler = serve(workflow, {
      authenticate: twoTenants,
      budgets: { perTenantPerDayUsd: 0.25 },
    });
    server = await listen(handler);
    const alice = client(server.url);
    const bob = client(server.url, OTHER);
    for (const id of ['a1', 'a2'])
      expect((await alice('POST', '/sessions', { id })).status).toBe(201);
    expect((await bob('POST', '/sessions', { id: 'b1' })).status).toBe(201);

    const ask = (call: typeof alice, id: string) =>
      call('POST', `/sessions/${id}/runs`, { input: 'Where is my parcel?' });
    expect((await ask(alice, 'a1')).json.status).toBe('awaiting_input');
    expect((await ask(alice, 'a2')).json.pendingRequest.kind).toBe('input');
    const paused = await ask(alice, 'a1');
    expect(paused.json.pendingRequest).toMatchObject({
      kind: 'budget',
      agent: 'desk',
      prompt: 'Daily budget of $0.25 for tenant "alice" reached',
    });
    expect(model.calls.length).toBe(2);
    // Another tenant has a day of its own.
    expect((await ask(bob, 'b1')).json.pendingRequest.kind).toBe('input');
    expect(model.calls.length).toBe(3);

    const raised = await alice('POST', '/sessions/a1/runs', {
      decisions: [{ callId: paused.json.pendingRequest.id, approve: true, amountUsd: 0.1 }],
    });
    expect(raised.json.pendingRequest.kind).toBe('input');
    expect(model.calls.length).toBe(4);
    // $0.35 today, $0.30 spent: the next call of alice's asks again.
    expect((await ask(alice, 'a2')).json.pendingRequest.kind).toBe('budget');
  });

  it('refuses a cap that is not a positive number', () => {
    const { workflow } = costDesk(new MemoryCheckpointStore(), 1, 1);
    let error: unknown;
    try {
      serve(workflow, { token: 't', budgets: { perTenantPerDayUsd: 0 } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({
      path: 'budgets.perTenantPerDayUsd',
      message:
        'serve(): `budgets.perTenantPerDayUsd` must be a positive number of US dollars, got 0.',
    });
  });
});
