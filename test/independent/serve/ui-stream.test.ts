// Independent suite for API.md §15, the AI SDK UI message stream (`POST /chat`,
// `GET /chat/:id/stream`), read by the `ai` package itself: `readUIMessageStream` over the chunks
// `uiMessageChunkSchema` accepts, and `AbstractChat` with `DefaultChatTransport` (what `useChat`
// runs). Written from API.md alone. Readings where the page is open:
// - "one assistant UI message per response" is one per HTTP response: every snapshot of one
//   `/chat` answer has the same message id (the agent changes inside it through metadata);
// - the `{agent}` metadata comes in `message-metadata` chunks (the first may ride on the `start`
//   chunk's messageMetadata), one per change of speaker, so a triage → billing run sends exactly
//   agents ["triage", "billing"] in that order;
// - "the final metadata {status, pendingRequest}" merges into the message metadata, so the final
//   message's metadata is `{agent, status, pendingRequest}`; `pendingRequest` is the TaskResult's;
// - a tool part's output is the tool result's content (the string the tool returned).
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  getToolOrDynamicToolName,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  parseJsonEventStream,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  uiMessageChunkSchema,
} from 'ai';
import { afterEach, describe, expect, it } from 'vitest';

import { serve } from '../../../src/index.js';
import { authenticate, client, desk, Gate, listen, type Server, TOKENS, until } from './support.js';

let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: Parameters<typeof desk>[0] = {}) {
  const made = desk(options);
  server = await listen(serve(made.workflow, { authenticate }));
  return { ...made, alice: client(server.url, 'alice') };
}

const userMessage = (id: string, text: string): UIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});

function postChat(id: string, messages: UIMessage[]) {
  return fetch(`${server!.url}/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKENS.alice}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, messages, trigger: 'submit-message' }),
  });
}

/** The chunks of a UI message stream as the `ai` package parses them (a bad chunk throws). */
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

/** Every snapshot `readUIMessageStream` yields for `chunks`, continuing `message` if given. */
async function snapshots(chunks: UIMessageChunk[], message?: UIMessage): Promise<UIMessage[]> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const errors: unknown[] = [];
  const out: UIMessage[] = [];
  for await (const snapshot of readUIMessageStream({
    stream,
    ...(message ? { message } : {}),
    onError: (e) => void errors.push(e),
  })) {
    out.push(snapshot);
  }
  expect(errors).toEqual([]);
  return out;
}

/** The `{agent}` metadata in stream order (a `start` chunk may carry the first one). */
const agentsOf = (chunks: UIMessageChunk[]) =>
  chunks
    .filter((c) => c.type === 'message-metadata' || c.type === 'start')
    .map((c) => (c as { messageMetadata?: { agent?: string } }).messageMetadata)
    .filter((m): m is { agent?: string } => m !== undefined && m !== null && 'agent' in m)
    .map((m) => m.agent);

const textOf = (message: UIMessage) =>
  message.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text);

const toolPart = (message: UIMessage, name: string) =>
  message.parts.find((p) => isToolUIPart(p) && getToolOrDynamicToolName(p) === name) as
    | {
        toolCallId: string;
        state: string;
        input: unknown;
        output?: unknown;
        approval?: { id: string; approved?: boolean };
      }
    | undefined;

describe('POST /chat (API.md §15)', () => {
  it('answers a UI message stream `ai` reads: one assistant message, agents, handoff, final metadata', async () => {
    const { alice, workflow } = await start();
    const response = await postChat('ui-first', [userMessage('u-1', 'hello')]);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const chunks = await chunksOf(response);
    const all = await snapshots(chunks);
    const final = all.at(-1)!;
    expect(new Set(all.map((m) => m.id)).size).toBe(1);
    expect(final.role).toBe('assistant');
    expect(agentsOf(chunks)).toEqual(['triage', 'billing']);
    expect(textOf(final)).toEqual(['Billing: hello']);
    expect(final.parts.filter((p) => p.type === 'data-handoff')).toEqual([
      expect.objectContaining({ type: 'data-handoff', data: { from: 'triage', to: 'billing' } }),
    ]);
    const info = await workflow.session('ui-first').info();
    expect(final.metadata).toEqual({
      agent: 'billing',
      status: 'awaiting_input',
      pendingRequest: { ...info.pendingRequest, kind: 'input' },
    });
    expect((final.metadata as { pendingRequest: { prompt: string } }).pendingRequest.prompt).toBe(
      'Billing: hello',
    );
    // The session was created on first use and belongs to the caller.
    expect((await alice.get('/sessions/ui-first')).status).toBe(200);
    expect((await client(server!.url, 'bob').get('/sessions/ui-first')).status).toBe(404);
  });

  it('sends a tool-approval-request (approvalId = the call id) and continues the same message after approval', async () => {
    const { workflow, refunds } = await start();
    const user = userMessage('u-1', 'refund please');
    const chunks = await chunksOf(await postChat('ui-approve', [user]));
    const paused = (await snapshots(chunks)).at(-1)!;
    const info = await workflow.session('ui-approve').info();
    const callId = info.pendingRequest!.calls![0]!.id;
    expect(chunks.filter((c) => c.type === 'tool-approval-request')).toEqual([
      expect.objectContaining({
        type: 'tool-approval-request',
        approvalId: callId,
        toolCallId: callId,
      }),
    ]);
    const part = toolPart(paused, 'refund')!;
    expect(part.toolCallId).toBe(callId);
    expect(part.state).toBe('approval-requested');
    expect(part.input).toEqual({ invoiceId: '42' });
    expect(part.approval?.id).toBe(callId);
    const meta = paused.metadata as {
      status: string;
      pendingRequest: { kind: string; calls: unknown[] };
    };
    expect(meta.status).toBe('awaiting_input');
    expect(meta.pendingRequest.kind).toBe('approval');
    expect(meta.pendingRequest.calls).toEqual([
      { id: callId, name: 'refund', arguments: '{"invoiceId":"42"}' },
    ]);
    expect(refunds).toEqual([]);

    const answered: UIMessage = {
      ...paused,
      parts: paused.parts.map((p) =>
        isToolUIPart(p) && p.toolCallId === callId
          ? ({
              ...p,
              state: 'approval-responded',
              approval: { id: callId, approved: true },
            } as typeof p)
          : p,
      ),
    };
    const response = await postChat('ui-approve', [user, answered]);
    expect(response.status).toBe(200);
    const more = await chunksOf(response);
    const continued = await snapshots(more, answered);
    const final = continued.at(-1)!;
    expect(new Set(continued.map((m) => m.id))).toEqual(new Set([paused.id]));
    expect(refunds).toEqual(['42']);
    const done = toolPart(final, 'refund')!;
    expect(done.state).toBe('output-available');
    expect(done.output).toBe('refunded 42');
    expect(textOf(final).at(-1)).toBe('Done: refunded 42');
    const finalMeta = final.metadata as {
      status: string;
      pendingRequest: { kind: string; prompt: string };
    };
    expect(finalMeta.status).toBe('awaiting_input');
    expect(finalMeta.pendingRequest.kind).toBe('input');
    expect(finalMeta.pendingRequest.prompt).toBe('Done: refunded 42');
  });

  it('gives pendingRequest null in the final metadata when the run is not paused', async () => {
    const gate = new Gate();
    const { alice } = await start({ gate, gated: 'triage' });
    await alice.post('/sessions', { id: 'ui-stopped' });
    const reading = postChat('ui-stopped', [userMessage('u-1', 'slow hello')]).then(chunksOf);
    await gate.started;
    expect((await alice.post('/sessions/ui-stopped/stop', {})).status).toBe(202);
    gate.open();
    const final = (await snapshots(await reading)).at(-1)!;
    expect(final.metadata).toEqual({ agent: 'triage', status: 'terminated', pendingRequest: null });
  });
});

describe('GET /chat/:id/stream (API.md §15)', () => {
  it('answers the live run’s UI message stream from its start', async () => {
    const gate = new Gate();
    await start({ gate });
    const first = postChat('ui-resume', [userMessage('u-1', 'slow hello')]).then(chunksOf);
    await gate.started;
    const response = await fetch(`${server!.url}/chat/ui-resume/stream`, {
      headers: { authorization: `Bearer ${TOKENS.alice}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const reading = chunksOf(response);
    gate.open();
    const resumed = (await snapshots(await reading)).at(-1)!;
    const original = (await snapshots(await first)).at(-1)!;
    expect(resumed.parts).toEqual(original.parts);
    expect(resumed.metadata).toEqual(original.metadata);
    expect(textOf(resumed)).toEqual(['Billing: slow hello']);
    const empty = await fetch(`${server!.url}/chat/ui-resume/stream`, {
      headers: { authorization: `Bearer ${TOKENS.alice}` },
    });
    expect(empty.status).toBe(204);
  });
});

class MemoryChatState implements ChatState<UIMessage> {
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

class Chat extends AbstractChat<UIMessage> {
  constructor(id: string) {
    super({
      id,
      state: new MemoryChatState(),
      transport: new DefaultChatTransport({
        api: `${server!.url}/chat`,
        headers: { authorization: `Bearer ${TOKENS.alice}` },
      }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
  }
}

describe('useChat’s AbstractChat against /chat (API.md §15)', () => {
  it('asks, pauses on an approval, takes the rejection as the decision, continues the same message', async () => {
    const { workflow, refunds } = await start();
    const chat = new Chat('ui-abstract');
    await chat.sendMessage({ text: 'refund please' });
    expect(chat.error).toBeUndefined();
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const assistant = chat.messages[1]!;
    const part = toolPart(assistant, 'refund')!;
    expect(part.state).toBe('approval-requested');
    const callId = (await workflow.session('ui-abstract').info()).pendingRequest!.calls![0]!.id;
    expect(part.approval?.id).toBe(callId);

    await chat.addToolApprovalResponse({ id: callId, approved: false, reason: 'no' });
    await until(
      () =>
        chat.status === 'ready' &&
        textOf(chat.messages.at(-1)!).includes(
          'Done: Tool call "refund" was rejected by the user: no',
        ),
    );
    expect(chat.error).toBeUndefined();
    expect(chat.messages.map((m) => [m.role, m.id])).toEqual([
      ['user', chat.messages[0]!.id],
      ['assistant', assistant.id],
    ]);
    expect(refunds).toEqual([]);
    const thread = await workflow.session('ui-abstract').messages();
    const response = thread.find((m) => m.type === 'ToolApprovalResponseEvent') as unknown as {
      callId: string;
      approved: boolean;
      reason?: string;
    };
    expect([response.callId, response.approved, response.reason]).toEqual([callId, false, 'no']);
  });
});

describe('AbstractChat.resumeStream() against GET /chat/:id/stream (API.md §15)', () => {
  it('a second tab resumes the live run and ends with the same assistant message', async () => {
    const gate = new Gate();
    await start({ gate });
    const first = new Chat('ui-tabs');
    const sending = first.sendMessage({ text: 'slow hello' });
    await gate.started;
    const second = new Chat('ui-tabs');
    const resuming = second.resumeStream();
    await until(() => second.status === 'streaming' || second.messages.length > 0);
    gate.open();
    await Promise.all([sending, resuming]);
    await until(() => first.status === 'ready' && second.status === 'ready');
    expect(second.error).toBeUndefined();
    const mine = first.messages.at(-1)!;
    const theirs = second.messages.at(-1)!;
    expect(theirs.role).toBe('assistant');
    expect(textOf(theirs)).toEqual(['Billing: slow hello']);
    expect(theirs.parts).toEqual(mine.parts);
    expect(theirs.metadata).toEqual(mine.metadata);
  });

  it('resuming when nothing runs changes nothing (204)', async () => {
    const { alice } = await start();
    await alice.post('/sessions', { id: 'ui-idle-resume' });
    const chat = new Chat('ui-idle-resume');
    await chat.resumeStream();
    expect(chat.error).toBeUndefined();
    expect(chat.messages).toEqual([]);
  });
});

describe('a text reply on /chat while approvals are pending (API.md §15, §10)', () => {
  it('rejects them all with that text as the reason; the tool never runs', async () => {
    const { workflow, refunds } = await start();
    const user = userMessage('u-1', 'refund please');
    const paused = (await snapshots(await chunksOf(await postChat('ui-text-reply', [user])))).at(
      -1,
    )!;
    const response = await postChat('ui-text-reply', [
      user,
      paused,
      userMessage('u-2', 'never mind'),
    ]);
    expect(response.status).toBe(200);
    await chunksOf(response);
    expect(refunds).toEqual([]);
    const results = (await workflow.session('ui-text-reply').messages())
      .filter((m) => m.type === 'ToolCallExecutionEvent' && m.source === 'billing')
      .flatMap(
        (m) => (m as unknown as { content: { content: string; isError: boolean }[] }).content,
      );
    expect(results).toEqual([
      expect.objectContaining({
        content: 'Tool call "refund" was rejected by the user: never mind',
        isError: true,
      }),
    ]);
  });
});
