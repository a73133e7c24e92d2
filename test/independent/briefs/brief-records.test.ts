// Independent suite for API.md §24, where the brief is kept and shown: on the HandoffMessage
// (the message schema, a checkpoint restart, old messages without one), in recordings (replay ok;
// a changed brief is the divergence "handoff_brief"), on serve()'s wires (`data-handoff`
// `{from, to, brief}`, AG-UI `CUSTOM baton.handoff`) and in OpenTelemetry. Written from API.md
// §24 (with §1, §7, §11, §15 and §19) alone. Readings where the page is open:
// - on AG-UI the brief is in the CUSTOM event's `value`, beside `from` and `to`;
// - in OpenTelemetry the brief is JSON text in `baton.handoff.brief`, on the `baton.handoff` span
//   event and on the agent span.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  AgentMessageSchema,
  HandoffBuilder,
  handoffMessage,
  MemoryCheckpointStore,
  replay,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  serve,
} from '../../../src/index.js';
import { one, type Sdk, startSdk } from '../tracing/otel.js';

const Invoice = z.object({ reason: z.string(), invoiceId: z.string() });
const BRIEF = { reason: 'charged twice', invoiceId: 'INV-4' };

let sdk: Sdk;
beforeAll(() => {
  sdk = startSdk();
});
afterAll(async () => {
  await sdk.stop();
});

function desk(options: { store?: MemoryCheckpointStore; brief?: z.ZodObject } = {}) {
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient(() => scriptedToolCall('handoff_to_billing', BRIEF)),
  });
  const billing = new Agent({
    name: 'billing',
    instructions: (ctx) => `invoice=${(ctx.handoff?.brief as { invoiceId?: string })?.invoiceId}`,
    client: new ScriptedChatClient((request) =>
      scriptedText(`Looking at ${String(request.messages[0]?.content)}.`),
    ),
  });
  const builder = new HandoffBuilder({ name: 'records', participants: [triage, billing] })
    .coordinator(triage)
    .addHandoff(triage, [billing], { brief: options.brief ?? Invoice })
    .withUserReplyRouting('last_agent');
  if (options.store !== undefined) builder.withCheckpointing(options.store);
  return builder.build();
}

describe('§24 the brief on the HandoffMessage', () => {
  it('is recorded, passes the message schema, and a message without one still does', async () => {
    const result = await desk().run('help');
    const handoff = result.messages.find((m) => m.type === 'HandoffMessage');
    expect(handoff).toMatchObject({ source: 'triage', target: 'billing', brief: BRIEF });
    expect(AgentMessageSchema.parse(JSON.parse(JSON.stringify(handoff)))).toEqual(handoff);
    const old = handoffMessage({ source: 'triage', target: 'billing', content: 'moved' });
    expect(AgentMessageSchema.parse(JSON.parse(JSON.stringify(old)))).toEqual(old);
  });

  it('survives a restart: a fresh workflow on the store still gives billing ctx.handoff', async () => {
    const store = new MemoryCheckpointStore();
    const first = await desk({ store }).session('r-1').run('help');
    expect(first.pendingRequest?.prompt).toBe('Looking at invoice=INV-4.');
    const again = desk({ store }).session('r-1');
    const thread = await again.messages();
    expect(thread.find((m) => m.type === 'HandoffMessage')).toMatchObject({ brief: BRIEF });
    expect((await again.run('and?')).pendingRequest?.prompt).toBe('Looking at invoice=INV-4.');
  });
});

describe('§24 the brief in recordings', () => {
  it('replays ok against the same desk, and reports handoff_brief against a changed one', async () => {
    const session = desk().session('rec-1');
    await session.run('help');
    const recording = await session.record();
    expect(await replay(desk(), recording)).toMatchObject({ ok: true });
    const changed = await replay(desk({ brief: z.object({ reason: z.string() }) }), recording);
    expect(changed.ok).toBe(false);
    expect(changed.divergence).toMatchObject({
      turn: 1,
      agent: 'triage',
      what: 'handoff_brief',
      expected: BRIEF,
    });
  });
});

describe('§24 the brief on the wires and in traces', () => {
  it('is in data-handoff on /chat and in CUSTOM baton.handoff on /ag-ui', async () => {
    const handler = serve(desk({ store: new MemoryCheckpointStore() }), { token: 'tok' });
    const headers = { authorization: 'Bearer tok', 'content-type': 'application/json' };
    const chat = await handler.fetch(
      new Request('http://desk/chat', {
        method: 'POST',
        headers,
        body: JSON.stringify({
          id: 'w-1',
          trigger: 'submit-message',
          messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'help' }] }],
        }),
      }),
    );
    const chunks = sseData(await chat.text());
    expect(chunks.filter((c) => c.type === 'data-handoff').map((c) => c.data)).toEqual([
      { from: 'triage', to: 'billing', brief: BRIEF },
    ]);

    const agui = await handler.fetch(
      new Request('http://desk/ag-ui', {
        method: 'POST',
        headers: { ...headers, accept: 'text/event-stream' },
        body: JSON.stringify({
          threadId: 'w-2',
          runId: 'run-1',
          state: {},
          messages: [{ id: 'm1', role: 'user', content: 'help' }],
          tools: [],
          context: [],
          forwardedProps: {},
        }),
      }),
    );
    const events = sseData(await agui.text());
    expect(events.filter((e) => e.type === 'CUSTOM').map((e) => [e.name, e.value])).toEqual([
      ['baton.handoff', { from: 'triage', to: 'billing', brief: BRIEF }],
    ]);
    await handler.close();
  });

  it('is on the baton.handoff span event', async () => {
    sdk.exporter.reset();
    await desk().run('help');
    const triage = one(sdk.spans(), 'invoke_agent triage');
    const event = triage.events.find((e) => e.name === 'baton.handoff');
    expect(JSON.parse(String(event?.attributes?.['baton.handoff.brief']))).toEqual(BRIEF);
    expect(JSON.parse(String(triage.attributes['baton.handoff.brief']))).toEqual(BRIEF);
  });
});

/** The JSON `data:` payloads of an SSE body. */
function sseData(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}
