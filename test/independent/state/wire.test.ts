// Independent suite for API.md §18 on the wire (§15): AG-UI `STATE_SNAPSHOT` at each run's start
// and `STATE_DELTA` (the JSON Patch) per change, read with @ag-ui/client's HttpAgent (which applies
// them to `agent.state`); the UI message stream's `data-state` parts, read with the `ai` package.
// Written from API.md alone. Readings where the page is open:
// - the snapshot comes before the run's first STEP_STARTED and holds the state the run starts
//   from; a tool's one-field change is one STATE_DELTA `[{op: "replace", path: "/<field>", value}]`;
// - a `data-state` part's `data` is either the state (`{state}`) or the JSON Patch of one change
//   (`{patch}`); folded over the state before the run, a response's parts give the state after it.
import { HttpAgent } from '@ag-ui/client';
import { type BaseEvent, EventType } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import {
  parseJsonEventStream,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  uiMessageChunkSchema,
} from 'ai';
import { afterEach, describe, expect, it } from 'vitest';

import { MemoryCheckpointStore, serve } from '../../../src/index.js';
import { authenticate, client, listen, type Server, TOKENS } from '../serve/support.js';
import { desk, type DeskState, INITIAL, stateOf } from './support.js';

let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start() {
  const made = desk({ store: new MemoryCheckpointStore() });
  server = await listen(serve(made.workflow, { authenticate }));
  return made;
}

function agentFor(threadId: string) {
  return new HttpAgent({
    url: `${server!.url}/ag-ui`,
    headers: { authorization: `Bearer ${TOKENS.alice}` },
    threadId,
  });
}

/**
 * One HttpAgent run. The first gives a user message; a later one answers the open
 * `input_required` interrupt with `{text}` (HttpAgent refuses a run that leaves it unanswered).
 */
async function runOnce(agent: HttpAgent, text: string, id: string, interruptId?: string) {
  if (interruptId === undefined) agent.addMessage({ id, role: 'user', content: text });
  const events: BaseEvent[] = [];
  await agent.runAgent(
    {
      runId: `run-${id}`,
      ...(interruptId === undefined
        ? {}
        : { resume: [{ interruptId, status: 'resolved' as const, payload: { text } }] }),
    },
    {
      onEvent: ({ event }) => {
        events.push(event);
      },
    },
  );
  for (const event of events) {
    expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
  }
  return events;
}

const ofType = <T>(events: BaseEvent[], type: EventType) =>
  events.filter((e) => e.type === type) as unknown as T[];

describe('AG-UI state events (API.md §18, §15)', () => {
  it('STATE_SNAPSHOT at each run start, one STATE_DELTA per change; HttpAgent ends with the session state', async () => {
    const { workflow } = await start();
    const agent = agentFor('agui-state');
    const first = await runOnce(agent, 'please verify C-77', 'm-1');
    const types = first.map((e) => e.type);
    const snapshotAt = types.indexOf(EventType.STATE_SNAPSHOT);
    expect(snapshotAt).toBeGreaterThan(types.indexOf(EventType.RUN_STARTED));
    expect(snapshotAt).toBeLessThan(types.indexOf(EventType.STEP_STARTED));
    expect(
      ofType<{ snapshot: unknown }>(first, EventType.STATE_SNAPSHOT).map((e) => e.snapshot),
    ).toEqual([INITIAL]);
    const deltas = ofType<{ delta: unknown[] }>(first, EventType.STATE_DELTA).map((e) => e.delta);
    expect(deltas).toHaveLength(1);
    expect(deltas[0]).toEqual(
      expect.arrayContaining([
        { op: 'replace', path: '/customerId', value: 'C-77' },
        { op: 'replace', path: '/verified', value: true },
      ]),
    );
    expect(deltas[0]).toHaveLength(2);
    // The delta comes after the tool's result and before the run ends.
    const deltaAt = types.indexOf(EventType.STATE_DELTA);
    expect(deltaAt).toBeGreaterThan(types.indexOf(EventType.TOOL_CALL_RESULT));
    expect(deltaAt).toBeLessThan(types.indexOf(EventType.RUN_FINISHED));
    const after = { customerId: 'C-77', verified: true, priority: 'low' };
    expect(agent.state).toEqual(after);
    expect(await stateOf(workflow.session('agui-state')).state()).toEqual(after);

    // The next run starts with a snapshot of the state as it is then (an app update included).
    await stateOf(workflow.session('agui-state')).updateState((draft: DeskState) => {
      draft.customerId = 'C-78';
    });
    const question = (first.at(-1) as unknown as { outcome: { interrupts: { id: string }[] } })
      .outcome.interrupts[0]!.id;
    const second = await runOnce(agent, 'make it high', 'm-2', question);
    expect(
      ofType<{ snapshot: unknown }>(second, EventType.STATE_SNAPSHOT).map((e) => e.snapshot),
    ).toEqual([{ customerId: 'C-78', verified: true, priority: 'low' }]);
    expect(ofType<{ delta: unknown[] }>(second, EventType.STATE_DELTA).map((e) => e.delta)).toEqual(
      [[{ op: 'replace', path: '/priority', value: 'high' }]],
    );
    expect(agent.state).toEqual({ customerId: 'C-78', verified: true, priority: 'high' });
  });

  it('a run that changes nothing sends the snapshot and no delta', async () => {
    await start();
    const agent = agentFor('agui-quiet');
    const events = await runOnce(agent, 'hello', 'm-1');
    expect(
      ofType<{ snapshot: unknown }>(events, EventType.STATE_SNAPSHOT).map((e) => e.snapshot),
    ).toEqual([INITIAL]);
    expect(ofType(events, EventType.STATE_DELTA)).toEqual([]);
    expect(agent.state).toEqual(INITIAL);
  });
});

/** A `data-state` part's data: the state itself, or the JSON Patch of a change. */
type StatePart = { state?: unknown; patch?: { op: string; path: string; value?: unknown }[] };

/** Applies one part: `{state}` replaces, `{patch}` applies RFC 6902 add/replace/remove. */
function fold(state: unknown, part: StatePart): unknown {
  if ('state' in part) return part.state;
  const next = structuredClone(state) as Record<string, unknown>;
  for (const op of part.patch ?? []) {
    const keys = op.path
      .split('/')
      .slice(1)
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = keys.pop()!;
    let target = next as Record<string, unknown>;
    for (const key of keys) target = target[key] as Record<string, unknown>;
    if (op.op === 'remove') delete target[last];
    else if (op.op === 'add' || op.op === 'replace') target[last] = op.value;
    else throw new Error(`unexpected op ${op.op}`);
  }
  return next;
}

async function chunksOf(response: Response): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  const parsed = parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema });
  for await (const chunk of parsed as unknown as AsyncIterable<
    { success: true; value: UIMessageChunk } | { success: false; error: unknown }
  >) {
    if (!chunk.success) throw chunk.error as Error;
    chunks.push(chunk.value);
  }
  return chunks;
}

async function finalMessage(chunks: UIMessageChunk[]): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  const errors: unknown[] = [];
  for await (const snapshot of readUIMessageStream({
    stream,
    onError: (e) => void errors.push(e),
  })) {
    last = snapshot;
  }
  expect(errors).toEqual([]);
  return last!;
}

describe('UI message stream data-state parts (API.md §18, §15)', () => {
  it('sends data-state parts the `ai` reader keeps; the last one is the state after the run', async () => {
    const { workflow } = await start();
    const response = await fetch(`${server!.url}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'ui-state',
        messages: [{ id: 'u-1', role: 'user', parts: [{ type: 'text', text: 'verify C-90' }] }],
        trigger: 'submit-message',
      }),
    });
    expect(response.status).toBe(200);
    const chunks = await chunksOf(response);
    const stateChunks = chunks.filter((c) => c.type === 'data-state') as unknown as {
      data: StatePart;
    }[];
    expect(stateChunks.length).toBeGreaterThan(0);
    const after = { customerId: 'C-90', verified: true, priority: 'low' };
    // Folded over the state before the run, the parts give the state after it.
    expect(stateChunks.reduce((state, c) => fold(state, c.data), INITIAL as unknown)).toEqual(
      after,
    );
    const message = await finalMessage(chunks);
    const parts = message.parts.filter((p) => p.type === 'data-state') as unknown as {
      data: StatePart;
    }[];
    expect(parts.map((p) => p.data)).toEqual(stateChunks.map((c) => c.data));
    expect(await stateOf(workflow.session('ui-state')).state()).toEqual(after);
    // GET /sessions/:id is info(), state included (§15).
    const info = await client(server!.url, 'alice').get('/sessions/ui-state');
    expect(info.status).toBe(200);
    expect((info.json as { state: unknown }).state).toEqual(after);
  });
});
