// Independent suite for API.md §17 over HTTP (§15): decisions for calls in doubt are `decisions`
// entries `{callId, approve}` or `{callId, result}` of `POST /sessions/:id/runs`. Written from
// API.md alone, through `handler.fetch`. Readings where the page is open:
// - the in-doubt pause is made in the process (a run cancelled through its signal on the same
//   workflow object the handler serves, with a shared MemoryCheckpointStore), since HTTP has no
//   way to cancel a run mid-tool (a disconnect does not stop it, `/stop` waits for the turn);
// - `GET /sessions/:id` shows the pause as `info()` does: status `awaiting_input`;
// - AG-UI (§15): the call in doubt is one `tool_call` interrupt whose id is the call id; its
//   resume payload `{result}` resolves it; a RunAgentInput without `resume` gets RUN_ERROR.
import { describe, expect, it } from 'vitest';

import { MemoryCheckpointStore, serve, type TaskResult } from '../../../src/index.js';
import {
  aborted,
  batchThenDone,
  calls,
  counts,
  deskWorkflow,
  ledgerTool,
  memoryLedger,
  ofType,
} from './support.js';

const TOKEN = 'effects-token';
const authenticate = (request: Request) =>
  request.headers.get('authorization') === `Bearer ${TOKEN}` ? { id: 'alice' } : null;

interface AgUiEvent {
  type: string;
  toolCallId?: string;
  content?: string;
}

/** The JSON `data` of each event of a whole SSE body. */
function sseData(text: string): AgUiEvent[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n\n')
    .map((block) =>
      block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n'),
    )
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data) as AgUiEvent);
}

/** A RunAgentInput for the session `threadId`, as AG-UI 1.0 sends it. */
const runInput = (threadId: string, runId: string, extra: Record<string, unknown> = {}) => ({
  threadId,
  runId,
  messages: [{ id: 'm-1', role: 'user', content: 'Refund INV-1' }],
  tools: [],
  context: [],
  state: {},
  forwardedProps: {},
  ...extra,
});

async function inDoubtOverHttp(id: string) {
  const ledger = memoryLedger();
  const controller = new AbortController();
  let hanging = true;
  const tools = [
    ledgerTool(ledger, { name: 'lookup', effect: 'read' }),
    ledgerTool(ledger, {
      name: 'refund',
      onStart: () => {
        if (hanging) controller.abort();
      },
      behaviour: async (ctx) => {
        if (hanging) {
          await aborted(ctx.signal);
          throw new Error('aborted');
        }
        return 'refunded INV-1';
      },
    }),
  ];
  const { workflow, client } = deskWorkflow({
    tools,
    steps: batchThenDone(calls(['c1', 'lookup'], ['c2', 'refund'])),
    store: new MemoryCheckpointStore(),
    name: 'http-effects',
  });
  const handler = serve(workflow, { authenticate });
  const send = async (method: string, path: string, body?: unknown, accept?: string) => {
    const response = await handler.fetch(
      new Request(`http://baton.test${path}`, {
        method,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(accept === undefined ? {} : { accept }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    const text = await response.text();
    if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      return { status: response.status, json: undefined as unknown, events: sseData(text) };
    }
    return {
      status: response.status,
      json: text === '' ? undefined : (JSON.parse(text) as unknown),
      events: [] as AgUiEvent[],
    };
  };
  expect((await send('POST', '/sessions', { id })).status).toBe(201);
  const session = workflow.session(id);
  const cancelled = await session.run('Refund INV-1', { signal: controller.signal });
  hanging = false;
  expect(cancelled.status).toBe('cancelled');
  const paused = await session.run();
  expect(paused.pendingRequest?.kind).toBe('in_doubt');
  return { handler, send, ledger, session, client };
}

describe('decisions for calls in doubt over HTTP (API.md §17, §15)', () => {
  it('GET /sessions/:id shows the pause', async () => {
    const { send, handler } = await inDoubtOverHttp('http-info');
    const info = await send('GET', '/sessions/http-info');
    expect(info.status).toBe(200);
    expect(info.json).toMatchObject({ status: 'awaiting_input' });
    await handler.close();
  });

  it("{callId, result} resolves the call: recorded as the decision and as the tool's result", async () => {
    const { send, handler, ledger, session } = await inDoubtOverHttp('http-resolve');
    const answer = await send('POST', '/sessions/http-resolve/runs', {
      decisions: [{ callId: 'c2', result: 'refunded by hand' }],
    });
    expect([answer.status, answer.json]).toEqual([200, answer.json]);
    const result = answer.json as TaskResult;
    expect(result.status).toBe('awaiting_input');
    expect(result.pendingRequest?.kind).toBe('input');
    expect(counts(ledger.lines())).toEqual({ lookup: 2, refund: 1 });
    const thread = await session.messages();
    expect(
      ofType(thread, 'ToolApprovalResponseEvent').map((e) => [e.callId, e.approved, e.result]),
    ).toEqual([['c2', true, 'refunded by hand']]);
    const results = ofType(thread, 'ToolCallExecutionEvent')
      .flatMap((e) => e.content)
      .sort((a, b) => a.callId.localeCompare(b.callId));
    expect(results).toEqual([
      { callId: 'c1', name: 'lookup', content: 'lookup done', isError: false },
      { callId: 'c2', name: 'refund', content: 'refunded by hand', isError: false },
    ]);
    expect(ofType(thread, 'TextMessage').at(-1)?.content).toBe(
      'Done: lookup done | refunded by hand',
    );
    await handler.close();
  });

  it('{callId, approve: true} runs the call again with the same callId', async () => {
    const { send, handler, ledger } = await inDoubtOverHttp('http-approve');
    const answer = await send('POST', '/sessions/http-approve/runs', {
      decisions: [{ callId: 'c2', approve: true }],
    });
    expect([answer.status, answer.json]).toEqual([200, answer.json]);
    expect((answer.json as TaskResult).pendingRequest?.kind).toBe('input');
    expect(ledger.lines().filter((l) => l.startsWith('refund'))).toEqual([
      'refund:c2',
      'refund:c2',
    ]);
    await handler.close();
  });

  it('{callId, approve: false, reason} rejects it with the exact error result', async () => {
    const { send, handler, ledger, session } = await inDoubtOverHttp('http-reject');
    const answer = await send('POST', '/sessions/http-reject/runs', {
      decisions: [{ callId: 'c2', approve: false, reason: 'done already' }],
    });
    expect([answer.status, answer.json]).toEqual([200, answer.json]);
    expect(counts(ledger.lines())).toEqual({ lookup: 2, refund: 1 });
    const results = ofType(await session.messages(), 'ToolCallExecutionEvent').flatMap(
      (e) => e.content,
    );
    expect(results.find((r) => r.callId === 'c2')).toEqual({
      callId: 'c2',
      name: 'refund',
      content: 'Tool call "refund" may or may not have completed; it was not retried: done already',
      isError: true,
    });
    await handler.close();
  });

  it('an unknown callId answers 400 and commits nothing', async () => {
    const { send, handler, ledger, session } = await inDoubtOverHttp('http-unknown');
    const thread = await session.messages();
    const log = await session.checkpoints();
    const answer = await send('POST', '/sessions/http-unknown/runs', {
      decisions: [{ callId: 'nope', result: 'x' }],
    });
    expect(answer.status).toBe(400);
    expect(await session.messages()).toEqual(thread);
    expect(await session.checkpoints()).toEqual(log);
    expect(ledger.lines()).toEqual(['lookup:c1', 'refund:c2']);
    await handler.close();
  });

  it('AG-UI: resume payload {result} resolves the call in doubt', async () => {
    const { send, handler, ledger, session } = await inDoubtOverHttp('agui-resolve');
    const answer = await send(
      'POST',
      '/ag-ui',
      runInput('agui-resolve', 'run-2', {
        resume: [
          { interruptId: 'c2', status: 'resolved', payload: { result: 'refunded by hand' } },
        ],
      }),
      'text/event-stream',
    );
    expect(answer.status).toBe(200);
    const results = answer.events.filter((e) => e.type === 'TOOL_CALL_RESULT');
    expect(results.find((e) => e.toolCallId === 'c2')?.content).toBe('refunded by hand');
    expect(answer.events.at(-1)?.type).toBe('RUN_FINISHED');
    expect(counts(ledger.lines())).toEqual({ lookup: 2, refund: 1 });
    const decision = ofType(await session.messages(), 'ToolApprovalResponseEvent');
    expect(decision.map((e) => [e.callId, e.approved, e.result])).toEqual([
      ['c2', true, 'refunded by hand'],
    ]);
    await handler.close();
  });

  it('AG-UI: a request without resume while the call is in doubt gets RUN_ERROR and commits nothing', async () => {
    const { send, handler, ledger, session } = await inDoubtOverHttp('agui-missing');
    const thread = await session.messages();
    const log = await session.checkpoints();
    const answer = await send(
      'POST',
      '/ag-ui',
      runInput('agui-missing', 'run-2'),
      'text/event-stream',
    );
    expect(answer.status).toBe(200);
    expect(answer.events.at(-1)?.type).toBe('RUN_ERROR');
    expect(answer.events.filter((e) => e.type === 'RUN_FINISHED')).toEqual([]);
    expect(await session.messages()).toEqual(thread);
    expect(await session.checkpoints()).toEqual(log);
    expect(ledger.lines()).toEqual(['lookup:c1', 'refund:c2']);
    await handler.close();
  });
});
