// Independent suite for API.md §15, AG-UI 1.0 on `POST /ag-ui`: `@ag-ui/client`'s HttpAgent runs and
// resumes the session, every event passes `@ag-ui/core`'s schemas. Written from API.md alone.
// Readings where the page is open:
// - a pause ends with RUN_FINISHED whose `outcome` is `{type: "interrupt", interrupts}`; a question
//   is one interrupt `{reason: "input_required", id: <pending request id>, responseSchema}` whose
//   schema describes an object with a string property `text`;
// - the handoff's CUSTOM event is named `baton.handoff` (its value is not asserted: the page does
//   not give its shape);
// - RUN_ERROR for a request without `resume` while tool-call interrupts are open comes in a 200 SSE
//   answer (AG-UI reports run errors as events), and nothing is committed: the step log, the
//   thread and info() are unchanged and no tool ran; a run that fails (the model throws) ends with
//   RUN_ERROR whose message carries the error's message, and no RUN_FINISHED;
// - `@ag-ui/client`'s HttpAgent refuses by itself a run that leaves an interrupt unanswered, so
//   "answered ... by a new user message" is exercised with a raw RunAgentInput.
import { HttpAgent } from '@ag-ui/client';
import { type BaseEvent, EventType } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { afterEach, describe, expect, it } from 'vitest';

import {
  Agent,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  serve,
} from '../../../src/index.js';
import {
  allEvents,
  authenticate,
  client,
  desk,
  listen,
  type Server,
  TOKENS,
  wire,
} from './support.js';

let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start() {
  const made = desk({ store: new MemoryCheckpointStore() });
  server = await listen(serve(made.workflow, { authenticate }));
  return { ...made, alice: client(server.url, 'alice') };
}

function agentFor(threadId: string) {
  return new HttpAgent({
    url: `${server!.url}/ag-ui`,
    headers: { authorization: `Bearer ${TOKENS.alice}` },
    threadId,
  });
}

async function runOnce(agent: HttpAgent, parameters: Parameters<HttpAgent['runAgent']>[0] = {}) {
  const events: BaseEvent[] = [];
  await agent.runAgent(parameters, {
    onEvent: ({ event }) => {
      events.push(event);
    },
  });
  return events;
}

type Interrupt = {
  id: string;
  reason: string;
  toolCallId?: string;
  responseSchema?: Record<string, unknown>;
};
const interruptsOf = (events: BaseEvent[]) => {
  const finished = events.at(-1) as {
    type: string;
    outcome?: { type: string; interrupts?: Interrupt[] };
  };
  expect(finished.type).toBe(EventType.RUN_FINISHED);
  expect(finished.outcome?.type).toBe('interrupt');
  return finished.outcome!.interrupts!;
};
const textsOf = (events: BaseEvent[]) => {
  const byId = new Map<string, string>();
  for (const e of events as { type: string; messageId?: string; delta?: string }[]) {
    if (e.type === EventType.TEXT_MESSAGE_START) byId.set(e.messageId!, '');
    if (e.type === EventType.TEXT_MESSAGE_CONTENT)
      byId.set(e.messageId!, byId.get(e.messageId!)! + e.delta);
  }
  return [...byId.values()];
};

/** Raw POST /ag-ui: the SSE `data` of every event, each checked against `@ag-ui/core`. */
async function rawRun(body: unknown) {
  const response = await fetch(`${server!.url}/ag-ui`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKENS.alice}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: JSON.stringify(body),
  });
  const events = (await allEvents(response)).map((e) => JSON.parse(e.data) as { type: string });
  for (const event of events) {
    const parsed = EventSchemas.safeParse(event);
    expect(parsed.success, JSON.stringify(event)).toBe(true);
  }
  return { status: response.status, contentType: response.headers.get('content-type'), events };
}

describe('POST /ag-ui (API.md §15)', () => {
  it('runs a new thread: every event passes @ag-ui/core, steps per agent, handoff, input_required interrupt', async () => {
    const { alice, workflow } = await start();
    const { status, contentType, events } = await rawRun({
      threadId: 'agui-new',
      runId: 'run-1',
      messages: [{ id: 'm-1', role: 'user', content: 'hello' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    });
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/event-stream/);
    const typed = events as unknown as BaseEvent[];
    expect(typed[0]).toMatchObject({
      type: EventType.RUN_STARTED,
      threadId: 'agui-new',
      runId: 'run-1',
    });
    const steps = (typed as { type: string; stepName?: string }[])
      .filter((e) => e.type === EventType.STEP_STARTED || e.type === EventType.STEP_FINISHED)
      .map((e) => `${e.type}:${e.stepName}`);
    expect(steps).toEqual([
      'STEP_STARTED:triage',
      'STEP_FINISHED:triage',
      'STEP_STARTED:billing',
      'STEP_FINISHED:billing',
    ]);
    expect(
      typed
        .filter((e) => e.type === EventType.CUSTOM)
        .map((e) => (e as unknown as { name: string }).name),
    ).toEqual(['baton.handoff']);
    expect(textsOf(typed)).toEqual(['Billing: hello']);
    const calls = (typed as { type: string; toolCallId?: string }[])
      .filter((e) => e.type.startsWith('TOOL_CALL_'))
      .map((e) => e.type);
    expect(calls).toEqual([
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
    ]);
    expect(typed.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      threadId: 'agui-new',
      runId: 'run-1',
    });
    const info = await workflow.session('agui-new').info();
    const [interrupt, ...others] = interruptsOf(typed);
    expect(others).toEqual([]);
    expect(interrupt!.reason).toBe('input_required');
    expect(interrupt!.id).toBe(info.pendingRequest!.id);
    const schema = interrupt!.responseSchema as {
      type: string;
      properties: { text: { type: string } };
      required?: string[];
    };
    expect(schema.type).toBe('object');
    expect(schema.properties.text.type).toBe('string');
    expect(schema.required).toEqual(['text']);
    expect((await alice.get('/sessions/agui-new')).status).toBe(200);
    expect((await client(server!.url, 'bob').get('/sessions/agui-new')).status).toBe(404);
  });

  it('HttpAgent: a tool_call interrupt per approval, resumed with {approved: true}', async () => {
    const { refunds, workflow } = await start();
    const agent = agentFor('agui-approve');
    agent.addMessage({ id: 'm-1', role: 'user', content: 'refund please' });
    const first = await runOnce(agent, { runId: 'run-1' });
    const info = await workflow.session('agui-approve').info();
    const callId = info.pendingRequest!.calls![0]!.id;
    expect(interruptsOf(first)).toEqual([
      expect.objectContaining({ id: callId, reason: 'tool_call', toolCallId: callId }),
    ]);
    const started = first.filter((e) => e.type === EventType.TOOL_CALL_START) as unknown as {
      toolCallId: string;
      toolCallName: string;
    }[];
    expect(started.map((e) => [e.toolCallName, e.toolCallId])).toContainEqual(['refund', callId]);
    const results = (events: BaseEvent[]) =>
      (
        events.filter((e) => e.type === EventType.TOOL_CALL_RESULT) as unknown as {
          toolCallId: string;
          content: string;
        }[]
      ).filter((e) => e.toolCallId === callId);
    expect(results(first)).toEqual([]);
    expect(refunds).toEqual([]);

    const second = await runOnce(agent, {
      runId: 'run-2',
      resume: [{ interruptId: callId, status: 'resolved', payload: { approved: true } }],
    });
    expect(refunds).toEqual(['42']);
    expect(results(second).map((e) => e.content)).toEqual(['refunded 42']);
    expect(
      (second as { type: string; stepName?: string }[])
        .filter((e) => e.type === EventType.STEP_STARTED)
        .map((e) => e.stepName),
    ).toEqual(['billing']);
    expect(textsOf(second)).toEqual(['Done: refunded 42']);
    expect(interruptsOf(second).map((i) => i.reason)).toEqual(['input_required']);
  });

  it('HttpAgent: {approved: false, reason} rejects the call', async () => {
    const { refunds, workflow } = await start();
    const agent = agentFor('agui-reject');
    agent.addMessage({ id: 'm-1', role: 'user', content: 'refund please' });
    await runOnce(agent, { runId: 'run-1' });
    const info = await workflow.session('agui-reject').info();
    const callId = info.pendingRequest!.calls![0]!.id;
    const second = await runOnce(agent, {
      runId: 'run-2',
      resume: [
        { interruptId: callId, status: 'resolved', payload: { approved: false, reason: 'no' } },
      ],
    });
    expect(refunds).toEqual([]);
    expect(textsOf(second)).toEqual(['Done: Tool call "refund" was rejected by the user: no']);
  });

  it('an input_required interrupt answered by {text} (HttpAgent), and by a new user message (raw POST)', async () => {
    const { workflow } = await start();
    const agent = agentFor('agui-input');
    agent.addMessage({ id: 'm-1', role: 'user', content: 'hello' });
    const first = await runOnce(agent, { runId: 'run-1' });
    const [question] = interruptsOf(first);
    const second = await runOnce(agent, {
      runId: 'run-2',
      resume: [{ interruptId: question!.id, status: 'resolved', payload: { text: 'more please' } }],
    });
    expect(textsOf(second)).toEqual(['Billing: more please']);
    // HttpAgent itself refuses a run that leaves an interrupt unanswered ("Thread has 1 pending
    // interrupt(s) not addressed by resume"), so the new-message answer goes as a raw RunAgentInput.
    const third = await rawRun({
      threadId: 'agui-input',
      runId: 'run-3',
      messages: [...agent.messages, { id: 'm-3', role: 'user', content: 'and again' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    });
    expect(third.status).toBe(200);
    expect(textsOf(third.events as unknown as BaseEvent[])).toEqual(['Billing: and again']);
    const users = (await workflow.session('agui-input').messages())
      .filter((m) => m.source === 'user' && m.type === 'TextMessage')
      .map((m) => (m as { content: string }).content);
    expect(users).toEqual(['hello', 'more please', 'and again']);
  });

  it('answers RUN_ERROR and commits nothing when resume is missing while tool-call interrupts are open', async () => {
    const { workflow, refunds } = await start();
    const agent = agentFor('agui-missing');
    agent.addMessage({ id: 'm-1', role: 'user', content: 'refund please' });
    await runOnce(agent, { runId: 'run-1' });
    const session = workflow.session('agui-missing');
    const before = {
      log: await session.checkpoints(),
      thread: wire(await session.messages()),
      info: wire(await session.info()),
    };
    const { status, events } = await rawRun({
      threadId: 'agui-missing',
      runId: 'run-2',
      messages: [
        { id: 'm-1', role: 'user', content: 'refund please' },
        { id: 'm-2', role: 'user', content: 'just do it' },
      ],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    });
    expect(status).toBe(200);
    expect(events.at(-1)!.type).toBe(EventType.RUN_ERROR);
    expect(events.filter((e) => e.type === EventType.RUN_FINISHED)).toEqual([]);
    expect(refunds).toEqual([]);
    expect(await session.checkpoints()).toEqual(before.log);
    expect(wire(await session.messages())).toEqual(before.thread);
    expect(wire(await session.info())).toEqual(before.info);
  });

  it('ends with RUN_ERROR carrying the error when the run fails', async () => {
    const broken = new Agent({
      name: 'broken',
      client: new ScriptedChatClient(() => new Error('model is down 7731')),
    });
    const workflow = new HandoffBuilder({ name: 'broken', participants: [broken] })
      .coordinator(broken)
      .build();
    server = await listen(serve(workflow, { authenticate }));
    const { status, events } = await rawRun({
      threadId: 'agui-broken',
      runId: 'run-1',
      messages: [{ id: 'm-1', role: 'user', content: 'hello' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    });
    expect(status).toBe(200);
    expect(events[0]!.type).toBe(EventType.RUN_STARTED);
    const last = events.at(-1) as { type: string; message: string };
    expect(last.type).toBe(EventType.RUN_ERROR);
    expect(last.message).toContain('model is down 7731');
    expect(events.filter((e) => e.type === EventType.RUN_FINISHED)).toEqual([]);
  });
});
