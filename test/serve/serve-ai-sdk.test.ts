import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { afterEach, describe, expect, it } from 'vitest';

import { MemoryCheckpointStore, serve } from '../../src/index.js';
import type { Listening } from '../../src/serve/node-listen.js';
import { Gate, serveDesk } from '../support/serve-desk.js';
import { listen, TOKEN, twoTenants } from './serve-http.js';

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The plainest `ChatState`: an array (what `useChat` keeps in React state). */
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

class TestChat extends AbstractChat<UIMessage> {
  constructor(init: ConstructorParameters<typeof AbstractChat<UIMessage>>[0]) {
    super(init);
  }
}

const transport = (url: string) =>
  new DefaultChatTransport<UIMessage>({
    api: `${url}/chat`,
    headers: { authorization: `Bearer ${TOKEN}` },
  });

/** What a UI message shows, part by part. */
function shown(message: UIMessage | undefined): string[] {
  return (message?.parts ?? []).map((p) => {
    if (p.type === 'text') return `text: ${p.text}`;
    if (p.type === 'data-handoff') return `handoff: ${JSON.stringify(p.data)}`;
    if (p.type.startsWith('tool-')) {
      const tool = p as { type: string; state: string; input?: unknown; output?: unknown };
      return `${tool.type} ${tool.state} ${JSON.stringify(tool.input)}${tool.output === undefined ? '' : ` -> ${JSON.stringify(tool.output)}`}`;
    }
    return p.type;
  });
}

describe('serve(): the AI SDK UI message stream', () => {
  it('is read by readUIMessageStream: agent metadata, handoff part, approval request, final metadata', async () => {
    const desk = serveDesk({ store: new MemoryCheckpointStore() });
    server = await listen(serve(desk.workflow, { authenticate: twoTenants }));
    const raw = await fetch(`${server.url}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'ai-1',
        trigger: 'submit-message',
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
      }),
    });
    expect(raw.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    await raw.text();
    const chunks = await transport(server.url).sendMessages({
      chatId: 'ai-1',
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
      messages: [{ id: 'u2', role: 'user', parts: [{ type: 'text', text: 'I want a refund' }] }],
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
    const approval = seen.find((c) => c.type === 'tool-approval-request');
    expect(approval).toEqual({
      type: 'tool-approval-request',
      approvalId: expect.stringMatching(/^refund-/),
      toolCallId: approval?.type === 'tool-approval-request' ? approval.approvalId : '',
    });
    expect(
      seen
        .filter((c) => c.type === 'message-metadata')
        .map((c) => (c as { messageMetadata: unknown }).messageMetadata),
    ).toEqual([
      { agent: 'triage' },
      { agent: 'billing' },
      {
        status: 'awaiting_input',
        pendingRequest: expect.objectContaining({ kind: 'approval', agent: 'billing' }),
      },
    ]);
    expect(last?.id).toBe('ai-1:4'); // <session>:<the run's first step>
    expect(shown(last)).toEqual([
      'tool-handoff_to_billing output-available {} -> "Transferred to billing, adopting the role of billing immediately."',
      'handoff: {"from":"triage","to":"billing"}',
      'tool-refund approval-requested {"invoiceId":"42"}',
    ]);
  });

  it('drives a whole conversation through AbstractChat and DefaultChatTransport, approval included', async () => {
    const desk = serveDesk({ store: new MemoryCheckpointStore() });
    server = await listen(serve(desk.workflow, { authenticate: twoTenants }));
    const state = new ArrayState();
    const chat = new TestChat({
      id: 'ai-2',
      transport: transport(server.url),
      state,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: 'hello' });
    expect(shown(state.messages[1])).toEqual(['text: How can I help?']);
    expect(state.messages[1]?.metadata).toEqual({
      agent: 'triage',
      status: 'awaiting_input',
      pendingRequest: expect.objectContaining({ kind: 'input', prompt: 'How can I help?' }),
    });

    await chat.sendMessage({ text: 'I want a refund' });
    const asking = state.messages[3];
    const refund = asking?.parts.find((p) => p.type === 'tool-refund') as {
      toolCallId: string;
      state: string;
    };
    expect(refund.state).toBe('approval-requested');

    await chat.addToolApprovalResponse({ id: refund.toolCallId, approved: true });
    for (
      let i = 0;
      i < 400 &&
      (chat.status !== 'ready' ||
        shown(state.messages.at(-1)).at(-1) !== 'text: Your refund is done.');
      i++
    ) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(state.messages).toHaveLength(4); // the approval continued the same assistant message
    expect(state.messages[3]?.id).toBe(asking?.id);
    expect(shown(state.messages[3]).slice(-2)).toEqual([
      'tool-refund output-available {"invoiceId":"42"} -> "Refunded invoice 42."',
      'text: Your refund is done.',
    ]);
    expect(state.messages[3]?.metadata).toMatchObject({
      agent: 'billing',
      status: 'awaiting_input',
    });
    expect(desk.refunds).toEqual([`42@${refund.toolCallId}`]);

    // A second refund, rejected: the tool part is denied.
    await chat.sendMessage({ text: 'another refund' });
    const second = state.messages.at(-1)?.parts.find((p) => p.type === 'tool-refund') as {
      toolCallId: string;
      state: string;
    };
    await chat.addToolApprovalResponse({ id: second.toolCallId, approved: false, reason: 'no' });
    for (
      let i = 0;
      i < 400 &&
      (chat.status !== 'ready' || shown(state.messages.at(-1)).at(-1) !== 'text: No refund then.');
      i++
    ) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(shown(state.messages.at(-1)).filter((p) => p.startsWith('tool-refund'))).toEqual([
      'tool-refund output-denied {"invoiceId":"42"}',
    ]);
    expect(state.messages).toHaveLength(6);

    // Reconnecting while nothing runs: 204, nothing changes.
    await chat.resumeStream();
    expect(state.messages).toHaveLength(6);
  });

  it("reconnects to a live run with GET /chat/:id/stream, from the run's start (204 once it ended)", async () => {
    const gate = new Gate();
    const desk = serveDesk({ store: new MemoryCheckpointStore(), gate });
    server = await listen(serve(desk.workflow, { authenticate: twoTenants }));
    const sent = fetch(`${server.url}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'ai-3',
        trigger: 'submit-message',
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'slow hello' }] }],
      }),
    });
    for (let i = 0; i < 400 && gate.waiting === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const again = await transport(server.url).reconnectToStream({ chatId: 'ai-3' });
    expect(again).not.toBeNull();
    gate.open();
    let last: UIMessage | undefined;
    for await (const message of readUIMessageStream({
      stream: again as ReadableStream<UIMessageChunk>,
    }))
      last = message;
    expect(last?.id).toBe('ai-3:2');
    expect(shown(last)).toEqual(['text: How can I help?']);
    expect(last?.metadata).toMatchObject({ agent: 'triage', status: 'awaiting_input' });
    await (await sent).text();
    expect(await transport(server.url).reconnectToStream({ chatId: 'ai-3' })).toBeNull();
  });
});
