// Issue 46 (API.md §24): a handoff's brief on serve()'s wires, read by the `ai` package and by
// `@ag-ui/client`.
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent, CustomEvent } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';

import { MemoryCheckpointStore, serve } from '../../src/index.js';
import type { Listening } from '../../src/serve/node-listen.js';
import { briefDesk, TRIAGE_BRIEF } from '../support/brief-desk.js';
import { client, listen, TOKEN, twoTenants } from './serve-http.js';

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const HANDOFF = { from: 'triage', to: 'billing', brief: TRIAGE_BRIEF };

describe('serve(): handoff briefs', () => {
  it('puts the brief in the data-handoff part of /chat, as the thread holds it', async () => {
    server = await listen(
      serve(briefDesk({ store: new MemoryCheckpointStore() }), { authenticate: twoTenants }),
    );
    const transport = new DefaultChatTransport<UIMessage>({
      api: `${server.url}/chat`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const chunks = await transport.sendMessages({
      chatId: 'b-1',
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'charged twice' }] }],
    });
    let last: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream: chunks })) last = message;
    const parts = (message: UIMessage | undefined) =>
      (message?.parts ?? []).flatMap((p) => (p.type === 'data-handoff' ? [p.data] : []));
    expect(parts(last)).toEqual([HANDOFF]);

    // The thread behind it holds the brief on its HandoffMessage.
    const stored = await client(server.url)('GET', '/sessions/b-1/messages');
    expect(stored.status).toBe(200);
    const thread = stored.json.messages as { type: string; brief?: unknown }[];
    expect(thread.filter((m) => m.type === 'HandoffMessage').map((m) => m.brief)).toEqual([
      TRIAGE_BRIEF,
    ]);
  });

  it('puts the brief in the CUSTOM baton.handoff event of /ag-ui', async () => {
    server = await listen(
      serve(briefDesk({ store: new MemoryCheckpointStore() }), { authenticate: twoTenants }),
    );
    const agent = new HttpAgent({
      url: `${server.url}/ag-ui`,
      headers: { authorization: `Bearer ${TOKEN}` },
      threadId: 'b-2',
    });
    agent.addMessage({ id: 'm1', role: 'user', content: 'charged twice' });
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
    const custom = events.filter((e): e is CustomEvent => e.type === 'CUSTOM');
    expect(custom.map((e) => [e.name, e.value])).toEqual([['baton.handoff', HANDOFF]]);
  });
});
