// The encoders of the run feed (API.md §22): each answer shown exactly once and in the log's order
// — a tool call and its result before the answer that used it — with the real clients: the `ai`
// package's AbstractChat over DefaultChatTransport, and @ag-ui/client's HttpAgent with every event
// checked by @ag-ui/core's schema. Before the feed, a streaming agent with a `read` tool showed
// its answer twice on POST /chat: the streamed deltas, the tool parts, then the whole answer.
import { HttpAgent } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  type UIMessage,
} from 'ai';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';

import {
  Agent,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  type ScriptedStep,
  serve,
  tool,
} from '../../src/index.js';
import type { Listening } from '../../src/serve/node-listen.js';
import { serveDesk } from '../support/serve-desk.js';
import { listen, TOKEN, twoTenants } from './serve-http.js';

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

class ArrayState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

class TestChat extends AbstractChat<UIMessage> {}

/** A streaming helper with a `read` tool: it looks the order up, then streams its answer. */
function orderDesk() {
  const read = tool({
    name: 'read_order',
    description: 'Reads an order.',
    parameters: z.object({ id: z.string() }),
    effect: 'read',
    execute: ({ id }) => `order ${id}: shipped`,
  });
  let calls = 0;
  const helper = new Agent({
    name: 'helper',
    stream: true,
    tools: [read],
    maxToolIterations: 2,
    client: new ScriptedChatClient((request): ScriptedStep => {
      if (request.messages.at(-1)?.role === 'tool')
        return { chunks: ['Your order ', 'has shipped.'] };
      return {
        content: null,
        toolCalls: [{ id: `read-${++calls}`, name: 'read_order', arguments: '{"id":"7"}' }],
      };
    }),
  });
  return new HandoffBuilder({ name: 'orders', participants: [helper] })
    .coordinator(helper)
    .withCheckpointing(new MemoryCheckpointStore())
    .build();
}

function shown(message: UIMessage | undefined): string[] {
  return (message?.parts ?? []).map((p) => {
    if (p.type === 'text') return `text: ${p.text}`;
    if (p.type.startsWith('tool-')) {
      const part = p as { type: string; state: string; output?: unknown };
      return `${part.type} ${part.state}${part.output === undefined ? '' : ` -> ${JSON.stringify(part.output)}`}`;
    }
    return p.type;
  });
}

describe('the feed encoders show each answer once, in log order', () => {
  it('POST /chat (useChat): the tool part, then the streamed answer once', async () => {
    server = await listen(serve(orderDesk(), { authenticate: twoTenants }));
    const state = new ArrayState();
    const chat = new TestChat({
      id: 'orders-1',
      state,
      transport: new DefaultChatTransport<UIMessage>({
        api: `${server.url}/chat`,
        headers: { authorization: `Bearer ${TOKEN}` },
      }),
    });
    await chat.sendMessage({ text: 'where is order 7?' });
    expect(state.messages).toHaveLength(2);
    expect(shown(state.messages[1])).toEqual([
      'tool-read_order output-available -> "order 7: shipped"',
      'text: Your order has shipped.',
    ]);
  });

  it('POST /ag-ui (HttpAgent): the tool call and result, then one text message with the answer', async () => {
    server = await listen(serve(orderDesk(), { authenticate: twoTenants }));
    const agent = new HttpAgent({
      url: `${server.url}/ag-ui`,
      headers: { authorization: `Bearer ${TOKEN}` },
      threadId: 'orders-2',
    });
    const events: { type: string; delta?: string }[] = [];
    agent.addMessage({ id: 'u1', role: 'user', content: 'where is order 7?' });
    await agent.runAgent(
      {},
      {
        onEvent: ({ event }) => {
          expect(EventSchemas.safeParse(event).success).toBe(true);
          events.push(event as { type: string; delta?: string });
        },
      },
    );
    const order = events
      .map((e) => e.type)
      .filter((t) => t.startsWith('TOOL_CALL') || t.startsWith('TEXT_MESSAGE'));
    expect(order).toEqual([
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
    ]);
    const text = events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta);
    expect(text.join('')).toBe('Your order has shipped.');
    const assistant = agent.messages.filter((m) => m.role === 'assistant' && m.content);
    expect(assistant.map((m) => m.content)).toEqual(['Your order has shipped.']);
  });

  it('GET /chat/:id/stream answers 204 for a chat not made yet (useChat resume: true on a new chat)', async () => {
    server = await listen(serve(orderDesk(), { authenticate: twoTenants }));
    const headers = { authorization: `Bearer ${TOKEN}` };
    expect((await fetch(`${server.url}/chat/brand-new/stream`, { headers })).status).toBe(204);
  });

  it('GET /chat/:id/messages gives the thread as UIMessages: useChat starts from it after a reload', async () => {
    server = await listen(serve(orderDesk(), { authenticate: twoTenants }));
    const state = new ArrayState();
    const transport = new DefaultChatTransport<UIMessage>({
      api: `${server.url}/chat`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const chat = new TestChat({ id: 'orders-3', state, transport });
    await chat.sendMessage({ text: 'where is order 7?' });
    const response = await fetch(`${server.url}/chat/orders-3/messages`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(200);
    const messages = (await response.json()) as UIMessage[];
    expect(messages.map((m) => [m.role, shown(m)])).toEqual([
      ['user', ['text: where is order 7?']],
      ['assistant', shown(state.messages[1])],
    ]);
    expect(messages[1]?.id).toBe(state.messages[1]?.id);
    expect(messages[1]?.metadata).toEqual(state.messages[1]?.metadata);
    // A chat started from them goes on: the next answer is a new assistant message after them.
    const reloaded = new ArrayState();
    reloaded.messages = messages;
    const again = new TestChat({ id: 'orders-3', state: reloaded, transport });
    await again.sendMessage({ text: 'and order 8?' });
    expect(reloaded.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(shown(reloaded.messages[3])).toEqual([
      'tool-read_order output-available -> "order 7: shipped"',
      'text: Your order has shipped.',
    ]);
  });

  it('AG-UI: a question withdrawn ("cancelled") beside a new user message takes that message as the answer', async () => {
    const desk = serveDesk({ store: new MemoryCheckpointStore() });
    server = await listen(serve(desk.workflow, { authenticate: twoTenants }));
    const agent = new HttpAgent({
      url: `${server.url}/ag-ui`,
      headers: { authorization: `Bearer ${TOKEN}` },
      threadId: 'ag-cancel',
    });
    let finished: { outcome?: { interrupts?: { id: string }[] } } | undefined;
    const onEvent = ({ event }: { event: { type: string } }) => {
      expect(EventSchemas.safeParse(event).success).toBe(true);
      if (event.type === 'RUN_FINISHED') finished = event as typeof finished;
    };
    agent.addMessage({ id: 'u1', role: 'user', content: 'hello' });
    await agent.runAgent({}, { onEvent });
    const question = finished?.outcome?.interrupts?.[0]?.id ?? '';
    agent.addMessage({ id: 'u2', role: 'user', content: 'I want a refund' });
    await agent.runAgent({ resume: [{ interruptId: question, status: 'cancelled' }] }, { onEvent });
    const said = (await desk.workflow.session('ag-cancel').messages())
      .filter((m) => m.source === 'user')
      .map((m) => (m as { content: unknown }).content);
    expect(said).toEqual(['hello', 'I want a refund']);
    expect(finished?.outcome?.interrupts?.map((i) => (i as { reason?: string }).reason)).toEqual([
      'tool_call',
    ]);
  });
});
