// Issue 32 (API.md §18 on the wire, §15): AG-UI STATE_SNAPSHOT at each run's start and STATE_DELTA
// per change, read by @ag-ui/client (which applies the patch); `data-state` parts in the AI SDK
// UI message stream, read by the `ai` package's reader.
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  serve,
  tool,
} from '../../src/index.js';
import type { Listening } from '../../src/serve/node-listen.js';
import { listen, TOKEN, twoTenants } from './serve-http.js';

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** One agent that records the customer (a state update), then asks a question. */
function stateDesk() {
  const record = tool({
    name: 'record_customer',
    parameters: z.object({ customerId: z.string() }),
    execute: ({ customerId }, ctx) => {
      ctx.updateState((draft) => {
        draft.customerId = customerId;
      });
      return 'ok';
    },
  });
  const client = new ScriptedChatClient((_request, i) =>
    i % 2 === 0
      ? scriptedToolCall('record_customer', { customerId: `C-${i}` })
      : scriptedText('Which invoice?'),
  );
  const triage = new Agent({ name: 'triage', client, tools: [record], maxToolIterations: 2 });
  return new HandoffBuilder({
    participants: [triage],
    state: {
      schema: z.object({ customerId: z.string().nullable() }),
      initial: { customerId: null },
    },
  })
    .coordinator(triage)
    .withCheckpointing(new MemoryCheckpointStore())
    .build();
}

describe('serve(): the conversation state on the wire', () => {
  it('AG-UI: STATE_SNAPSHOT after RUN_STARTED, STATE_DELTA per change, applied by HttpAgent', async () => {
    server = await listen(serve(stateDesk(), { authenticate: twoTenants }));
    const agent = new HttpAgent({
      url: `${server.url}/ag-ui`,
      headers: { authorization: `Bearer ${TOKEN}` },
      threadId: 'st-1',
    });
    agent.addMessage({ id: 'm1', role: 'user', content: 'hello' });
    const events: BaseEvent[] = [];
    await agent.runAgent(
      {},
      {
        onEvent({ event }) {
          EventSchemas.parse(event);
          events.push(event);
        },
      },
    );
    const stateEvents = events.filter((e) => e.type.startsWith('STATE_'));
    expect(events[0]?.type).toBe('RUN_STARTED');
    expect(events[1]).toMatchObject({ type: 'STATE_SNAPSHOT', snapshot: { customerId: null } });
    expect(stateEvents.map((e) => ({ ...e, timestamp: undefined }))).toEqual([
      { type: 'STATE_SNAPSHOT', snapshot: { customerId: null }, timestamp: undefined },
      {
        type: 'STATE_DELTA',
        delta: [{ op: 'replace', path: '/customerId', value: 'C-0' }],
        timestamp: undefined,
      },
    ]);
    expect(agent.state).toEqual({ customerId: 'C-0' });
  });

  it('the UI message stream carries data-state parts, read by readUIMessageStream', async () => {
    server = await listen(serve(stateDesk(), { authenticate: twoTenants }));
    const transport = new DefaultChatTransport<UIMessage>({
      api: `${server.url}/chat`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const chunks = await transport.sendMessages({
      chatId: 'st-2',
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
    });
    const seen: UIMessageChunk[] = [];
    let last: UIMessage | undefined;
    const tee = chunks.pipeThrough(
      new TransformStream<UIMessageChunk, UIMessageChunk>({
        transform(chunk, controller) {
          seen.push(chunk);
          controller.enqueue(chunk);
        },
      }),
    );
    for await (const message of readUIMessageStream({ stream: tee })) last = message;
    expect(seen.filter((c) => c.type === 'data-state')).toEqual([
      {
        type: 'data-state',
        data: { patch: [{ op: 'replace', path: '/customerId', value: 'C-0' }] },
      },
    ]);
    expect(last?.parts.filter((p) => p.type === 'data-state')).toEqual([
      {
        type: 'data-state',
        data: { patch: [{ op: 'replace', path: '/customerId', value: 'C-0' }] },
      },
    ]);
  });
});
