import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { createWorkflow, terminationCondition } from '../../samples/devtools-desk.js';
import {
  Agent,
  FileCheckpointStore,
  GraphBuilder,
  HandoffBuilder,
  OpenAIChatClient,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  tool,
} from '../../src/index.js';
import { type DevtoolsServer, startDevtoolsServer } from '../../src/devtools/devtools-server.js';

const servers: DevtoolsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Partial<Parameters<typeof startDevtoolsServer>[0]> = {}) {
  const server = await startDevtoolsServer({
    workflow: createWorkflow({ thinkMs: 60_000 }),
    name: 'devtools-desk',
    module: 'samples/devtools-desk.ts',
    condition: terminationCondition,
    ...options,
  });
  servers.push(server);
  const base = `http://127.0.0.1:${server.port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        'x-baton-token': server.token,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, json: JSON.parse(text) as Record<string, unknown> };
  };
  return { server, base, call };
}

interface StreamedEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Follows `/api/events`; `next(predicate)` resolves with the first matching event not yet taken. */
async function follow(base: string, token: string) {
  const controller = new AbortController();
  const response = await fetch(`${base}/api/events?token=${token}`, { signal: controller.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const seen: StreamedEvent[] = [];
  const raw: string[] = [];
  let wake: () => void = () => {};
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        raw.push(decoder.decode(chunk));
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event !== undefined && data !== undefined) {
            seen.push({ event, data: JSON.parse(data) as Record<string, unknown> });
            wake();
          }
          end = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // aborted at the end of the test
    }
  })();
  let taken = 0;
  const next = async (match: (e: StreamedEvent) => boolean): Promise<StreamedEvent> => {
    for (;;) {
      for (let i = taken; i < seen.length; i++) {
        const e = seen[i] as StreamedEvent;
        if (match(e)) {
          taken = i + 1;
          return e;
        }
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  };
  return { next, seen, raw, close: () => controller.abort() };
}

describe('devtools server', () => {
  it('refuses every route without the token (401) and from another origin (403)', async () => {
    const { server, base } = await start();
    const routes: [string, string][] = [
      ['GET', '/'],
      ['GET', '/api/workflow'],
      ['GET', '/api/events'],
      ['GET', '/api/sessions'],
      ['GET', '/api/sessions/abc'],
      ['POST', '/api/sessions'],
      ['POST', '/api/sessions/abc/run'],
      ['POST', '/api/sessions/abc/stop'],
      ['GET', '/favicon.ico'],
    ];
    for (const [method, path] of routes) {
      const bare = await fetch(`${base}${path}`, { method });
      expect([method, path, bare.status]).toEqual([method, path, 401]);
      const wrong = await fetch(`${base}${path}?token=${server.token.slice(1)}x`, { method });
      expect(wrong.status).toBe(401);
      const foreign = await fetch(`${base}${path}?token=${server.token}`, {
        method,
        headers: { origin: 'http://evil.example' },
      });
      expect([method, path, foreign.status]).toEqual([method, path, 403]);
    }
    const own = await fetch(`${base}/api/workflow?token=${server.token}`, {
      headers: { origin: base },
    });
    expect(own.status).toBe(200);
  });

  it('answers a malformed percent-escape in a session path with 400, not 500', async () => {
    const { call } = await start();
    for (const [method, path] of [
      ['GET', '/api/sessions/%E0%A4%A'],
      ['POST', '/api/sessions/%E0%A4%A/run'],
      ['POST', '/api/sessions/%zz/stop'],
    ] as const) {
      const answer = await call(method, path, method === 'POST' ? {} : undefined);
      expect([path, answer.status, answer.json]).toEqual([
        path,
        400,
        { error: 'The session id in the path is not valid percent-encoding.' },
      ]);
    }
  });

  it('redacts a Bearer token from the failure event it streams', async () => {
    const failing = new HandoffBuilder({
      participants: [
        {
          name: 'helper',
          description: 'fails with a gateway echo',
          respond: async () => {
            throw new Error('gateway said: Authorization: Bearer tok-SECRET-42');
          },
        },
      ],
    })
      .coordinator('helper')
      .build();
    const { server, base, call } = await start({ workflow: failing, condition: undefined });
    const events = await follow(base, server.token);
    const id = (await call('POST', '/api/sessions', {})).json.id as string;
    await call('POST', `/api/sessions/${id}/run`, { text: 'hi' });
    const failure = await events.next((e) => e.event === 'failure');
    events.close();
    expect(failure.data).toEqual({
      session: id,
      error: `Agent "helper" failed in session "${id}": gateway said: Authorization: Bearer [redacted]`,
    });
  });

  it('serves one self-contained page whose scripts only run with its nonce', async () => {
    const { server, base } = await start();
    const page = await fetch(server.url);
    expect(page.status).toBe(200);
    const html = await page.text();
    const csp = page.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet|https?:\/\/(?!www\.w3\.org)/);
    expect(server.url).toBe(`${base}/?token=${server.token}`);
  });

  it('runs a session, streams it live, pauses for the user and stops a run cleanly', async () => {
    const { server, base, call } = await start();
    const events = await follow(base, server.token);
    const created = await call('POST', '/api/sessions', {});
    expect(created.status).toBe(201);
    const id = created.json.id as string;

    expect(
      (await call('POST', `/api/sessions/${id}/run`, { text: 'I was charged twice' })).status,
    ).toBe(202);
    const handoff = await events.next(
      (e) =>
        e.event === 'message' && (e.data.message as { type: string }).type === 'HandoffMessage',
    );
    expect(handoff.data).toMatchObject({
      session: id,
      message: { source: 'triage', target: 'billing' },
      active: 'billing',
    });
    const paused = await events.next((e) => e.event === 'result');
    expect(paused.data).toMatchObject({
      session: id,
      status: 'awaiting_input',
      pendingRequest: {
        agent: 'billing',
        prompt: 'INV-1001 ($49) was charged twice. Shall I refund the duplicate?',
      },
      active: 'awaitingInput',
    });
    const labels = (paused.data.progress as { children: { label: string }[] }).children.map(
      (c) => c.label,
    );
    expect(labels).toEqual([
      "text 'bye' from user",
      'messages 3/40',
      expect.stringMatching(/^tokens \d{3}\/5,000$/),
    ]);

    await call('POST', `/api/sessions/${id}/run`, { text: 'my line is slow' });
    await events.next(
      (e) =>
        e.event === 'message' && (e.data.message as { target?: string }).target === 'technical',
    );
    expect((await call('POST', `/api/sessions/${id}/run`, { text: 'again' })).status).toBe(409);
    expect((await call('POST', `/api/sessions/${id}/stop`, {})).status).toBe(202);
    const stopped = await events.next((e) => e.event === 'result');
    expect(stopped.data).toMatchObject({
      status: 'cancelled',
      stopReason: null,
      active: 'technical',
    });
    const snapshot = await call('GET', `/api/sessions/${id}`);
    expect(snapshot.json).toMatchObject({ id, status: 'cancelled', active: 'technical' });
    expect((await call('POST', `/api/sessions/${id}/stop`, {})).status).toBe(409);
    events.close();
  });

  it("lists a run as running as soon as it starts, and a stopped run's spans as stopped, not failed", async () => {
    const { server, base, call } = await start();
    const events = await follow(base, server.token);
    const id = (await call('POST', '/api/sessions', {})).json.id as string;
    await call('POST', `/api/sessions/${id}/run`, { text: 'my internet line is slow' });
    // The page reads its session list again on every `sessions` event: one comes at the start.
    await events.next((e) => e.event === 'sessions' && e.data.reason === 'started');
    expect((await call('GET', '/api/sessions')).json.sessions).toEqual([
      { id, status: 'running', step: expect.any(Number), origin: 'process' },
    ]);
    await events.next(
      (e) =>
        e.event === 'message' && (e.data.message as { target?: string }).target === 'technical',
    );
    await call('POST', `/api/sessions/${id}/stop`, {});
    await events.next((e) => e.event === 'sessions' && e.data.reason === 'ran');
    const spans = (await call('GET', `/api/sessions/${id}`)).json.spans as {
      name: string;
      errorType?: string;
      stopped?: boolean;
    }[];
    expect(spans.filter((s) => s.errorType !== undefined)).toEqual([]);
    // Both end on the same abort; which one the page hears of first is not fixed.
    expect(
      spans
        .filter((s) => s.stopped === true)
        .map((s) => s.name)
        .sort(),
    ).toEqual(['chat', 'invoke_agent technical']);
    events.close();
  });

  it('lights every participant of a group step while it works, each until its answer lands', async () => {
    // b and c run in parallel after a; each answers only when the test releases it.
    const gates = new Map<string, () => void>();
    const gated = (name: string) =>
      new Agent({
        name,
        client: new ScriptedChatClient(
          () =>
            new Promise<{ content: string }>((resolve) => {
              gates.set(name, () => resolve({ content: `${name} done` }));
            }),
        ),
      });
    const instant = (name: string) =>
      new Agent({ name, client: new ScriptedChatClient(() => ({ content: `${name} done` })) });
    const [a, b, c, d] = [instant('a'), gated('b'), gated('c'), instant('d')];
    const graph = new GraphBuilder({ name: 'fan' })
      .addNode(a)
      .addNode(b)
      .addNode(c)
      .addNode(d)
      .addEdge(a, [b, c])
      .addEdge([b, c], d)
      .setEntryPoint(a)
      .build();
    const { server, base, call } = await start({ workflow: graph, name: 'fan', module: 'fan.ts' });
    const events = await follow(base, server.token);
    const id = (await call('POST', '/api/sessions', {})).json.id as string;
    await call('POST', `/api/sessions/${id}/run`, { text: 'go' });

    const speakers = (list: string[]) => (e: StreamedEvent) =>
      e.event === 'speakers' && JSON.stringify(e.data.speaking) === JSON.stringify(list);
    const first = await events.next(speakers(['a']));
    expect(first.data).toEqual({ session: id, speaking: ['a'] });
    const answerOf = (name: string) => (e: StreamedEvent) =>
      e.event === 'message' && (e.data.message as { source: string }).source === name;
    expect((await events.next(answerOf('a'))).data.speaking).toEqual([]);
    await events.next(speakers(['b', 'c']));
    expect((await call('GET', `/api/sessions/${id}`)).json).toMatchObject({
      status: 'running',
      speaking: ['b', 'c'],
    });
    while (gates.size < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    gates.get('c')?.();
    gates.get('b')?.();
    // The answers land in the order the graph names them; each clears its own node.
    expect((await events.next(answerOf('b'))).data.speaking).toEqual(['c']);
    expect((await events.next(answerOf('c'))).data.speaking).toEqual([]);
    await events.next(speakers(['d']));
    const done = await events.next((e) => e.event === 'result');
    expect(done.data).toMatchObject({ status: 'terminated', speaking: [] });
    expect((await call('GET', `/api/sessions/${id}`)).json.speaking).toEqual([]);
    events.close();
  });

  it('lists stored sessions with their step log and forks one from a past step', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'baton-devtools-'));
    const stored = createWorkflow({ checkpointStore: new FileCheckpointStore(directory) });
    await stored.session('earlier').run('I was charged twice');
    const { call } = await start({
      workflow: createWorkflow({ checkpointStore: new FileCheckpointStore(directory) }),
      storeDirectory: directory,
    });
    const listed = await call('GET', '/api/sessions');
    expect(listed.json.sessions).toEqual([
      { id: 'earlier', status: 'awaiting_input', step: 3, origin: 'store' },
    ]);
    const snapshot = await call('GET', '/api/sessions/earlier');
    expect(snapshot.json.checkpoints).toMatchObject([
      { step: 1, event: 'user_input' },
      { step: 2, event: 'agent_response:triage' },
      { step: 3, event: 'agent_response:billing' },
    ]);
    const fork = await call('POST', '/api/sessions', { from: { session: 'earlier', step: 1 } });
    expect(fork.status).toBe(201);
    const forked = await call('GET', `/api/sessions/${fork.json.id as string}`);
    expect(forked.json).toMatchObject({ status: 'idle', step: 1 });
    expect((forked.json.messages as unknown[]).length).toBe(1);
    const bad = await call('POST', '/api/sessions', { from: { session: 'earlier', step: 99 } });
    expect(bad.status).toBe(400);
  });

  it('never sends an API key: nothing it serves is built from a client object', async () => {
    const secret = 'sk-devtools-test-SECRET-0123456789';
    const triage = new Agent({
      name: 'triage',
      client: new ScriptedChatClient([scriptedText('Which invoice?')]),
    });
    const billing = new Agent({
      name: 'billing',
      client: new OpenAIChatClient({
        model: 'gpt-4.1-mini',
        apiKey: secret,
        baseURL: 'http://127.0.0.1:9/v1',
      }),
    });
    const workflow = new HandoffBuilder({ participants: [triage, billing] })
      .coordinator(triage)
      .build();
    const { server, base, call } = await start({ workflow, name: 'keys', condition: undefined });
    const events = await follow(base, server.token);
    const id = (await call('POST', '/api/sessions', {})).json.id as string;
    await call('POST', `/api/sessions/${id}/run`, { text: 'hello' });
    await events.next((e) => e.event === 'result');
    const served = [
      await (await fetch(server.url)).text(),
      (await call('GET', '/api/workflow')).text,
      (await call('GET', '/api/sessions')).text,
      (await call('GET', `/api/sessions/${id}`)).text,
      events.raw.join(''),
    ].join('\n');
    expect(served).toContain('Which invoice?');
    expect(served).not.toContain(secret);
    expect(served).not.toContain('sk-devtools');
    events.close();
  });

  it("streams each run's agent turns, model calls and tools with their timings, and keeps them in the snapshot", async () => {
    const triage = new Agent({
      name: 'triage',
      client: new ScriptedChatClient([scriptedToolCall('handoff_to_billing')], { model: 'm1' }),
    });
    const lookup = tool({
      name: 'lookup_invoice',
      description: 'Looks an invoice up.',
      parameters: z.object({ invoiceId: z.string() }),
      execute: ({ invoiceId }) => `${invoiceId}: paid`,
    });
    const billing = new Agent({
      name: 'billing',
      tools: [lookup],
      maxToolIterations: 2,
      client: new ScriptedChatClient([
        scriptedToolCall('lookup_invoice', { invoiceId: 'INV-1' }),
        scriptedText('Paid.', { promptTokens: 12, completionTokens: 2 }),
      ]),
    });
    const workflow = new HandoffBuilder({ name: 'timed', participants: [triage, billing] })
      .coordinator(triage)
      .build();
    const { server, base, call } = await start({ workflow, name: 'timed', condition: undefined });
    const events = await follow(base, server.token);
    const id = (await call('POST', '/api/sessions', {})).json.id as string;
    await call('POST', `/api/sessions/${id}/run`, { text: 'Is INV-1 paid?' });
    const streamed: Record<string, unknown>[] = [];
    for (let i = 0; i < 7; i++) {
      const event = await events.next((e) => e.event === 'span');
      expect(event.data.session).toBe(id);
      streamed.push(event.data.span as Record<string, unknown>);
    }
    const snapshot = (await call('GET', `/api/sessions/${id}`)).json;
    const spans = snapshot.spans as {
      id: number;
      parentId: number | null;
      runId: number;
      name: string;
      durationMs: number;
      tokens?: unknown;
    }[];
    expect(spans).toEqual(streamed);
    const byId = new Map(spans.map((s) => [s.id, s]));
    expect(spans.map((s) => [s.name, byId.get(s.parentId ?? -1)?.name ?? null, s.tokens])).toEqual([
      ['chat m1', 'invoke_agent triage', { input: 0, output: 0 }],
      ['invoke_agent triage', 'invoke_workflow timed', undefined],
      ['chat', 'invoke_agent billing', { input: 0, output: 0 }],
      ['execute_tool lookup_invoice', 'invoke_agent billing', undefined],
      ['chat', 'invoke_agent billing', { input: 12, output: 2 }],
      ['invoke_agent billing', 'invoke_workflow timed', undefined],
      ['invoke_workflow timed', null, undefined],
    ]);
    const run = spans.at(-1);
    expect(new Set(spans.map((s) => s.runId))).toEqual(new Set([run?.id]));
    expect(spans.every((s) => s.durationMs >= 0 && s.durationMs <= (run?.durationMs ?? 0))).toBe(
      true,
    );
    events.close();
  });
});
