// API.md §15 and §17: a session paused on a call in doubt, decided over HTTP with a `decisions`
// entry `{callId, result}` (or `{callId, approve}`); a `result` for a call awaiting approval, and
// an unknown call id, answer 400 and commit nothing.
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  serve,
  tool,
} from '../../src/index.js';
import type { Listening } from '../../src/serve/node-listen.js';
import { client, listen, TOKEN, twoTenants } from './serve-http.js';

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `charge` (once) hangs in its first run, which the test cancels: the call is then in doubt. */
function shop() {
  const runs: string[] = [];
  const controller = new AbortController();
  const charge = tool({
    name: 'charge',
    parameters: z.object({ amount: z.number() }),
    execute: ({ amount }, ctx) => {
      runs.push(`${amount}@${ctx.callId}`);
      if (runs.length > 1) return `Charged ${amount}.`;
      controller.abort();
      return new Promise<string>(() => {});
    },
  });
  const client = new ScriptedChatClient((request) =>
    request.messages.some((m) => m.role === 'tool')
      ? { content: `Done: ${request.messages.at(-1)?.content}` }
      : { toolCalls: [{ id: 'c1', name: 'charge', arguments: '{"amount":5}' }] },
  );
  const clerk = new Agent({ name: 'clerk', client, tools: [charge], maxToolIterations: 2 });
  const workflow = new HandoffBuilder({ name: 'shop', participants: [clerk] })
    .coordinator(clerk)
    .withCheckpointing(new MemoryCheckpointStore())
    .build();
  return { runs, controller, workflow };
}

describe('serve(): calls in doubt', () => {
  it('shows the pause and takes {callId, result}; bad decisions answer 400', async () => {
    const { runs, controller, workflow } = shop();
    server = await listen(serve(workflow, { authenticate: twoTenants }));
    const call = client(server.url);
    expect((await call('POST', '/sessions', { id: 's1' })).status).toBe(201);
    const cancelled = await workflow.session('s1').run('Charge 5', { signal: controller.signal });
    expect(cancelled.status).toBe('cancelled');

    const paused = await call('POST', '/sessions/s1/runs', {});
    expect(paused.json).toMatchObject({
      status: 'awaiting_input',
      pendingRequest: { kind: 'in_doubt', agent: 'clerk', calls: [{ id: 'c1', name: 'charge' }] },
    });
    const info = await call('GET', '/sessions/s1');
    expect(info.json.pendingRequest.kind).toBe('in_doubt');

    const unknown = await call('POST', '/sessions/s1/runs', {
      decisions: [{ callId: 'c9', result: 'x' }],
    });
    expect([unknown.status, unknown.json.error.code]).toEqual([400, 'unknown_call']);
    const odd = await call('POST', '/sessions/s1/runs', {
      decisions: [{ callId: 'c1', result: 7 }],
    });
    expect(odd.status).toBe(400);
    expect((await call('GET', '/sessions/s1')).json.step).toBe(info.json.step);

    const decided = await call('POST', '/sessions/s1/runs', {
      decisions: [{ callId: 'c1', result: 'Charged 5 (bank).' }],
    });
    expect(decided.status).toBe(200);
    expect(decided.json.pendingRequest).toMatchObject({
      kind: 'input',
      prompt: 'Done: Charged 5 (bank).',
    });
    expect(decided.json.messages[0]).toMatchObject({
      type: 'ToolApprovalResponseEvent',
      callId: 'c1',
      approved: true,
      result: 'Charged 5 (bank).',
    });
    expect(runs).toEqual(['5@c1']);
  });

  it('AG-UI: the call in doubt is a tool_call interrupt, answered with {result}', async () => {
    const { runs, controller, workflow } = shop();
    server = await listen(serve(workflow, { authenticate: twoTenants }));
    const call = client(server.url);
    expect((await call('POST', '/sessions', { id: 'ag-2' })).status).toBe(201);
    await workflow.session('ag-2').run('Charge 5', { signal: controller.signal });
    const paused = await call('POST', '/sessions/ag-2/runs', {});
    expect(paused.json.pendingRequest.kind).toBe('in_doubt');

    const agent = new HttpAgent({
      url: `${server.url}/ag-ui`,
      headers: { authorization: `Bearer ${TOKEN}` },
      threadId: 'ag-2',
    });
    const events: BaseEvent[] = [];
    await agent.runAgent(
      { resume: [{ interruptId: 'c1', status: 'resolved', payload: { result: 'Charged 5.' } }] },
      {
        onEvent({ event }) {
          EventSchemas.parse(event);
          events.push(event);
        },
      },
    );
    expect(events.map((e) => e.type)).toContain('TOOL_CALL_RESULT');
    expect(events.at(-1)?.type).toBe('RUN_FINISHED');
    const info = await call('GET', '/sessions/ag-2');
    expect(info.json.pendingRequest).toMatchObject({ kind: 'input', prompt: 'Done: Charged 5.' });
    expect(runs).toEqual(['5@c1']);
  });
});
