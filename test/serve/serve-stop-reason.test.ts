// Every step records the run's stop reason: the `result` another server reads back from the log
// (a workflow object of its own on the same store, as another process has) is the TaskResult the
// run returned, stop reason included — a team's `maxTurns`, a guardrail with its info, a stop
// requested of the session.
import { describe, expect, it } from 'vitest';

import {
  Agent,
  guardrail,
  HandoffBuilder,
  MemoryCheckpointStore,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  serve,
  textMessage,
  type ChatAgent,
  type CheckpointStore,
  type TaskResult,
} from '../../src/index.js';
import { parseSse } from './serve-http.js';

const TOKEN = 'stop-reason-token';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

function echo(name: string): ChatAgent {
  return {
    name,
    description: name,
    respond: async () => ({ chatMessage: textMessage({ source: name, content: `${name} here` }) }),
  };
}

const noCards = guardrail({
  name: 'no_cards',
  check: ({ text }) =>
    /\d{16}/.test(text) ? { tripwire: true, info: 'a card number' } : { tripwire: false },
});

const workflows = {
  maxTurns: (store: CheckpointStore) =>
    new RoundRobinGroupChat([echo('a'), echo('b')], { maxTurns: 1, checkpointStore: store }),
  guardrail: (store: CheckpointStore) => {
    const triage = new Agent({
      name: 'triage',
      client: new ScriptedChatClient([scriptedText('never said')]),
    });
    return new HandoffBuilder({ name: 'desk', participants: [triage] })
      .coordinator(triage)
      .withGuardrails({ input: [noCards] })
      .withCheckpointing(store)
      .build();
  },
};

async function run(
  handler: ReturnType<typeof serve>,
  id: string,
  input: string,
): Promise<TaskResult> {
  const base = 'http://baton.test';
  await handler.fetch(
    new Request(`${base}/sessions`, { method: 'POST', headers, body: JSON.stringify({ id }) }),
  );
  const response = await handler.fetch(
    new Request(`${base}/sessions/${id}/runs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ input }),
    }),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as TaskResult;
}

async function replayedResult(handler: ReturnType<typeof serve>, id: string): Promise<unknown> {
  const response = await handler.fetch(
    new Request(`http://baton.test/sessions/${id}/stream`, {
      headers: { ...headers, 'last-event-id': '0.0' },
    }),
  );
  expect(response.status).toBe(200);
  const events = parseSse(await response.text());
  const result = events.find((e) => e.event === 'result');
  return JSON.parse(result?.data ?? 'null');
}

describe('a result read back from the log by another server', () => {
  it.each([
    ['maxTurns', 'go', 'Maximum number of turns 1 reached.'],
    ['guardrail', 'my card is 4111111111111111', 'Guardrail "no_cards" tripped: a card number'],
  ] as const)('keeps the stop reason (%s)', async (kind, input, stopReason) => {
    const store = new MemoryCheckpointStore();
    const here = serve(workflows[kind](store), { token: TOKEN });
    const elsewhere = serve(workflows[kind](store), { token: TOKEN });
    const result = await run(here, `s-${kind}`, input);
    expect(result.stopReason).toBe(stopReason);
    expect(await replayedResult(elsewhere, `s-${kind}`)).toEqual(result);
    expect(await replayedResult(here, `s-${kind}`)).toEqual(result);
    await Promise.all([here.close(), elsewhere.close()]);
  });

  it('keeps the reason of a stop requested of the session', async () => {
    const store = new MemoryCheckpointStore();
    const workflow = workflows.maxTurns(store);
    const here = serve(workflow, { token: TOKEN });
    const elsewhere = serve(workflows.maxTurns(store), { token: TOKEN });
    await run(here, 's-stop', 'first');
    workflow.session('s-stop').stop('closing time');
    const result = await run(here, 's-stop', 'second');
    expect(result.stopReason).toBe('closing time');
    const response = await elsewhere.fetch(
      new Request('http://baton.test/sessions/s-stop/stream', {
        headers: { ...headers, 'last-event-id': '4.1' },
      }),
    );
    const events = parseSse(await response.text());
    expect(JSON.parse(events.find((e) => e.event === 'result')?.data ?? 'null')).toEqual(result);
    await Promise.all([here.close(), elsewhere.close()]);
  });
});
