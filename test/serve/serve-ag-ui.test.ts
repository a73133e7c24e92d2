import { HttpAgent, buildResumeArray } from '@ag-ui/client';
import type { BaseEvent, Interrupt } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { afterEach, describe, expect, it } from 'vitest';

import { MemoryCheckpointStore, serve } from '../../src/index.js';
import type { Listening } from '../../src/serve/node-listen.js';
import { serveDesk } from '../support/serve-desk.js';
import { client, listen, parseSse, TOKEN, twoTenants } from './serve-http.js';

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs the agent once; every event it hears, each checked by @ag-ui/core's schemas. */
async function runOnce(agent: HttpAgent, resume?: ReturnType<typeof buildResumeArray>) {
  const events: BaseEvent[] = [];
  let interrupts: Interrupt[] = [];
  await agent.runAgent(resume === undefined ? {} : { resume }, {
    onEvent({ event }) {
      EventSchemas.parse(event);
      events.push(event);
    },
    onRunFinishedEvent(params) {
      if (params.outcome === 'interrupt') interrupts = params.interrupts;
    },
  });
  return { events, interrupts };
}

const kinds = (events: readonly BaseEvent[]) =>
  events.map((e) => {
    const x = e as BaseEvent & {
      stepName?: string;
      name?: string;
      delta?: string;
      toolCallName?: string;
    };
    const detail = x.stepName ?? x.toolCallName ?? x.name ?? x.delta;
    return detail === undefined ? e.type : `${e.type} ${detail}`;
  });

describe('serve(): AG-UI 1.0', () => {
  it('HttpAgent runs the desk, gets an approval interrupt, and resumes it', async () => {
    const desk = serveDesk({ store: new MemoryCheckpointStore() });
    server = await listen(serve(desk.workflow, { authenticate: twoTenants }));
    const agent = new HttpAgent({
      url: `${server.url}/ag-ui`,
      headers: { authorization: `Bearer ${TOKEN}` },
      threadId: 'ag-1',
    });
    agent.addMessage({ id: 'm1', role: 'user', content: 'hello' });
    const first = await runOnce(agent);
    expect(kinds(first.events)).toEqual([
      'RUN_STARTED',
      'STEP_STARTED triage',
      'TEXT_MESSAGE_START triage',
      'TEXT_MESSAGE_CONTENT How can ',
      'TEXT_MESSAGE_CONTENT I help?',
      'TEXT_MESSAGE_END',
      'STEP_FINISHED triage',
      'RUN_FINISHED',
    ]);
    expect(first.interrupts).toEqual([
      {
        id: expect.any(String),
        reason: 'input_required',
        message: 'How can I help?',
        responseSchema: {
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
        },
      },
    ]);

    // Answer the question through its interrupt.
    const second = await runOnce(
      agent,
      buildResumeArray(first.interrupts, {
        [first.interrupts[0]?.id ?? '']: {
          status: 'resolved',
          payload: { text: 'I want a refund' },
        },
      }),
    );
    expect(kinds(second.events)).toEqual([
      'RUN_STARTED',
      'STEP_STARTED triage',
      'TOOL_CALL_START handoff_to_billing',
      'TOOL_CALL_ARGS {}',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'CUSTOM baton.handoff',
      'STEP_FINISHED triage',
      'STEP_STARTED billing',
      'TOOL_CALL_START refund',
      'TOOL_CALL_ARGS {"invoiceId":"42"}',
      'TOOL_CALL_END',
      'STEP_FINISHED billing',
      'RUN_FINISHED',
    ]);
    const [approval] = second.interrupts;
    expect(second.interrupts).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(/^refund-/),
        reason: 'tool_call',
        toolCallId: approval?.id,
      }),
    ]);

    // A new user message while the call awaits its decision: RUN_ERROR, nothing committed.
    const before = await client(server.url)('GET', '/sessions/ag-1');
    agent.addMessage({ id: 'm2', role: 'user', content: 'never mind' });
    const refused = await fetch(`${server.url}/ag-ui`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        threadId: 'ag-1',
        runId: 'r-x',
        messages: [{ id: 'm2', role: 'user', content: 'never mind' }],
        tools: [],
        context: [],
      }),
    });
    const refusedEvents = parseSse(await refused.text()).map((e) =>
      EventSchemas.parse(JSON.parse(e.data)),
    );
    expect(refusedEvents.map((e) => e.type)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    expect((await client(server.url)('GET', '/sessions/ag-1')).json).toEqual(before.json);

    const third = await runOnce(
      agent,
      buildResumeArray(second.interrupts, {
        [approval?.id ?? '']: { status: 'resolved', payload: { approved: true } },
      }),
    );
    expect(kinds(third.events)).toEqual([
      'RUN_STARTED',
      'STEP_STARTED billing',
      'TOOL_CALL_RESULT',
      'TEXT_MESSAGE_START billing',
      'TEXT_MESSAGE_CONTENT Your refund is done.',
      'TEXT_MESSAGE_END',
      'STEP_FINISHED billing',
      'RUN_FINISHED',
    ]);
    expect(desk.refunds).toEqual([`42@${approval?.id}`]);
  });
});
