// API.md §26 with §15: a session paused on a "budget" request, decided over HTTP with a
// `decisions` entry `{callId: <request id>, approve: true, amountUsd}`; an approval without an
// amount, and another id, answer 400 and commit nothing.
import { afterEach, describe, expect, it } from 'vitest';

import { MemoryCheckpointStore, serve } from '../../src/index.js';
import type { Listening } from '../../src/serve/node-listen.js';
import { costDesk } from '../support/cost-desk.js';
import { client, listen, twoTenants } from './serve-http.js';

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('serve(): budget requests', () => {
  it('shows the request and raises the budget by the amount a decision gives', async () => {
    const { workflow, client: model } = costDesk(new MemoryCheckpointStore(), 0.05, 2, 'ask');
    server = await listen(serve(workflow, { authenticate: twoTenants }));
    const call = client(server.url);
    expect((await call('POST', '/sessions', { id: 'b1' })).status).toBe(201);
    const paused = await call('POST', '/sessions/b1/runs', { input: 'Where is my parcel?' });
    expect(paused.json).toMatchObject({
      status: 'awaiting_input',
      pendingRequest: { kind: 'budget', agent: 'desk', prompt: 'Cost budget of $0.05 reached' },
    });
    const id: string = paused.json.pendingRequest.id;
    const step = (await call('GET', '/sessions/b1')).json.step;

    const noAmount = await call('POST', '/sessions/b1/runs', {
      decisions: [{ callId: id, approve: true }],
    });
    expect([noAmount.status, noAmount.json.error.message]).toEqual([
      400,
      expect.stringContaining('body.decisions[0].amountUsd'),
    ]);
    const other = await call('POST', '/sessions/b1/runs', {
      decisions: [{ callId: 'nope', approve: true, amountUsd: 1 }],
    });
    expect([other.status, other.json.error.code]).toEqual([400, 'unknown_call']);
    const negative = await call('POST', '/sessions/b1/runs', {
      decisions: [{ callId: id, approve: true, amountUsd: -1 }],
    });
    expect(negative.status).toBe(400);
    expect((await call('GET', '/sessions/b1')).json.step).toBe(step);
    expect(model.calls.length).toBe(0);

    const raised = await call('POST', '/sessions/b1/runs', {
      decisions: [{ callId: id, approve: true, amountUsd: 0.1 }],
    });
    expect(raised.json).toMatchObject({
      status: 'awaiting_input',
      pendingRequest: { kind: 'input' },
    });
    expect(model.calls.length).toBe(1);
    expect(await workflow.session('b1').saveState()).toMatchObject({
      termination: { spentUsd: 0.1, grantedUsd: 0.1 },
    });
  });
});
