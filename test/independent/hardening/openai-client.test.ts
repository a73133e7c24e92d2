import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';

import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  HandoffBuilder,
  MemoryCheckpointStore,
  type ModelResult,
  OpenAIChatClient,
  tool,
} from '../../../src/index.js';

/**
 * Issue 12, items 3 and 10, against a local OpenAI-compatible server that behaves like the odd
 * ones in the wild: tool-call arguments as a JSON object or null, tool calls without ids, and a
 * 401 whose body repeats the Authorization header.
 */

const KEY = 'sk-i12-hardening-SECRET-0123456789abcdef';

/** What the server answers: a chat message (non-streaming and streaming alike) or an error. */
type Reply =
  | { message: { content: string | null; tool_calls?: unknown[] } }
  | { status: number; body: (headers: IncomingHttpHeaders) => unknown };

interface Received {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
  );
});

async function startServer(replies: Reply[]) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as Record<string, unknown>;
      received.push({ headers: req.headers, body });
      const reply = replies.shift();
      if (reply === undefined) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'no reply scripted' } }));
        return;
      }
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.body(req.headers)));
        return;
      }
      const usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 };
      const base = { id: 'chatcmpl-1', created: 1, model: 'odd-model' };
      if (body.stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const calls = reply.message.tool_calls?.map((c, index) => ({ index, ...(c as object) }));
        const chunks = [
          {
            ...base,
            object: 'chat.completion.chunk',
            choices: [
              {
                index: 0,
                delta: {
                  role: 'assistant',
                  content: reply.message.content,
                  ...(calls ? { tool_calls: calls } : {}),
                },
                finish_reason: null,
              },
            ],
          },
          {
            ...base,
            object: 'chat.completion.chunk',
            choices: [{ index: 0, delta: {}, finish_reason: calls ? 'tool_calls' : 'stop' }],
          },
          { ...base, object: 'chat.completion.chunk', choices: [], usage },
        ];
        for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', ...reply.message },
              finish_reason: reply.message.tool_calls ? 'tool_calls' : 'stop',
            },
          ],
          usage,
        }),
      );
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseURL: `http://127.0.0.1:${port}/v1`, received };
}

const call = (fn: Record<string, unknown>, id?: string) => ({
  ...(id === undefined ? {} : { id }),
  type: 'function',
  function: { name: 'lookup', ...fn },
});

/** The client's result through `create`, and through `createStream` when it has one. */
async function bothWays(message: Extract<Reply, { message: unknown }>['message']) {
  const { baseURL } = await startServer([{ message }, { message }]);
  const client = new OpenAIChatClient({ model: 'odd-model', apiKey: KEY, baseURL });
  const results: ModelResult[] = [
    await client.create({ messages: [{ role: 'user', content: 'hi' }] }),
  ];
  if (client.createStream) {
    let last: ModelResult | undefined;
    for await (const item of client.createStream({ messages: [{ role: 'user', content: 'hi' }] })) {
      if (typeof item !== 'string') last = item;
    }
    expect(last).toBeDefined();
    results.push(last as ModelResult);
  }
  return results;
}

describe('OpenAIChatClient normalises what odd providers send (item 3)', () => {
  it('arguments as a JSON object become JSON text', async () => {
    for (const result of await bothWays({
      content: null,
      tool_calls: [call({ arguments: { q: 'INV-1', n: 2 } }, 'call_a')],
    })) {
      expect(result.toolCalls).toHaveLength(1);
      const [only] = result.toolCalls;
      expect(only?.id).toBe('call_a');
      expect(only?.name).toBe('lookup');
      expect(typeof only?.arguments).toBe('string');
      expect(JSON.parse(only?.arguments ?? '')).toEqual({ q: 'INV-1', n: 2 });
    }
  });

  it('arguments null or missing become JSON text', async () => {
    for (const fn of [{ arguments: null }, {}]) {
      for (const result of await bothWays({ content: null, tool_calls: [call(fn, 'call_n')] })) {
        const [only] = result.toolCalls;
        expect(typeof only?.arguments).toBe('string');
        expect(only?.id).toBe('call_n');
      }
    }
  });

  it('a tool call with no id gets a non-empty id, distinct from its siblings', async () => {
    for (const result of await bothWays({
      content: null,
      tool_calls: [call({ arguments: '{"q":"a"}' }), call({ arguments: '{"q":"b"}' })],
    })) {
      const ids = result.toolCalls.map((c) => c.id);
      expect(ids).toHaveLength(2);
      for (const id of ids) {
        expect(typeof id).toBe('string');
        expect(id.length).toBeGreaterThan(0);
      }
      expect(new Set(ids).size).toBe(2);
      expect(result.toolCalls.map((c) => JSON.parse(c.arguments) as unknown)).toEqual([
        { q: 'a' },
        { q: 'b' },
      ]);
    }
  });

  it('end to end: an object-argument call with no id runs the tool, pairs its result and reloads', async () => {
    const { baseURL, received } = await startServer([
      { message: { content: null, tool_calls: [call({ arguments: { q: 'INV-7' } })] } },
      { message: { content: 'INV-7 is paid. Anything else?' } },
    ]);
    const seen: string[] = [];
    const lookup = tool({
      name: 'lookup',
      description: 'Looks an invoice up.',
      parameters: z.object({ q: z.string() }),
      execute: async ({ q }) => {
        seen.push(q);
        return `${q}: paid`;
      },
    });
    const store = new MemoryCheckpointStore();
    const build = () =>
      new HandoffBuilder({
        participants: [
          new Agent({
            name: 'helper',
            client: new OpenAIChatClient({ model: 'odd-model', apiKey: KEY, baseURL }),
            tools: [lookup],
            maxToolIterations: 2,
          }),
        ],
      })
        .coordinator('helper')
        .withCheckpointing(store)
        .build();
    const result = await build().session('odd').run('Is INV-7 paid?');
    expect(result.status).toBe('awaiting_input');
    expect(result.pendingRequest?.prompt).toBe('INV-7 is paid. Anything else?');
    expect(seen).toEqual(['INV-7']);
    const request = result.messages.find((m) => m.type === 'ToolCallRequestEvent');
    const execution = result.messages.find((m) => m.type === 'ToolCallExecutionEvent');
    const id = request?.type === 'ToolCallRequestEvent' ? request.content[0]?.id : undefined;
    expect(typeof id).toBe('string');
    expect(id).not.toBe('');
    expect(execution?.type === 'ToolCallExecutionEvent' ? execution.content : []).toEqual([
      { callId: id, name: 'lookup', content: 'INV-7: paid', isError: false },
    ]);
    // The second request pairs the call and its result by that id, with arguments as text.
    const messages = received[1]?.body.messages as Record<string, unknown>[];
    const assistant = messages.find((m) => m.role === 'assistant') as {
      tool_calls: { id: string; function: { arguments: unknown } }[];
    };
    expect(assistant.tool_calls[0]?.id).toBe(id);
    expect(typeof assistant.tool_calls[0]?.function.arguments).toBe('string');
    expect(messages.find((m) => m.role === 'tool')?.tool_call_id).toBe(id);
    // And the session loads again from a fresh workflow object.
    expect(await build().session('odd').messages()).toEqual(
      await build().session('odd').messages(),
    );
    expect((await build().session('odd').info()).status).toBe('awaiting_input');
  });

  it('end to end: arguments null run as an ordinary (possibly error) result, never a crash', async () => {
    const { baseURL } = await startServer([
      { message: { content: null, tool_calls: [call({ arguments: null }, 'call_null')] } },
      { message: { content: 'Which invoice?' } },
    ]);
    const lookup = tool({
      name: 'lookup',
      description: 'Looks an invoice up.',
      parameters: z.object({ q: z.string() }),
      execute: async ({ q }) => q,
    });
    const workflow = new HandoffBuilder({
      participants: [
        new Agent({
          name: 'helper',
          client: new OpenAIChatClient({ model: 'odd-model', apiKey: KEY, baseURL }),
          tools: [lookup],
          maxToolIterations: 2,
        }),
      ],
    })
      .coordinator('helper')
      .withCheckpointing(new MemoryCheckpointStore())
      .build();
    const result = await workflow.run('hi');
    expect(result.status).toBe('awaiting_input');
    const results = result.messages.flatMap((m) =>
      m.type === 'ToolCallExecutionEvent' ? m.content : [],
    );
    expect(results.map((r) => [r.callId, r.name, r.isError])).toEqual([
      ['call_null', 'lookup', true],
    ]);
  });
});

// ---- item 10 -------------------------------------------------------------------------------------

/** The texts Baton puts on the error itself: String(), message and stack. */
function ownText(error: unknown): string {
  return error instanceof Error
    ? [String(error), error.message, error.stack ?? ''].join('\n')
    : String(error);
}

/** Everything `console.error(error)` would print: the error with its whole cause chain. */
function loggedText(error: unknown): string {
  const parts = [inspect(error, { depth: 8 })];
  let current: unknown = error;
  for (let i = 0; i < 8 && current instanceof Error; i++) {
    parts.push(ownText(current));
    current = current.cause;
  }
  return parts.join('\n');
}

function expectNoSecret(text: string) {
  expect(text).not.toContain(KEY);
  expect(text).not.toContain(OTHER_TOKEN);
  expect(text).not.toMatch(/Bearer\s+[A-Za-z0-9]/);
}

const OTHER_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.gateway-token_0123456789';
const echoes: [string, number, (h: IncomingHttpHeaders) => unknown][] = [
  [
    'a 401 that repeats the Authorization header',
    401,
    (h) => ({
      error: {
        message: `Invalid credentials: ${String(h.authorization)}`,
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      },
    }),
  ],
  [
    'a 401 that repeats the bare key',
    401,
    () => ({ error: { message: `Incorrect API key provided: ${KEY}.` } }),
  ],
  [
    'a 403 naming another Bearer token',
    403,
    () => ({ error: { message: `Forwarded Authorization: Bearer ${OTHER_TOKEN} was refused` } }),
  ],
  [
    'a 400 whose body holds the headers',
    400,
    (h) => ({ error: { message: 'bad request', headers: h }, echo: String(h.authorization) }),
  ],
];

describe('an API key or Bearer token in a provider error never reaches Baton errors (item 10)', () => {
  for (const [what, status, body] of echoes) {
    const clientError = async () => {
      const { baseURL, received } = await startServer([{ status, body }]);
      const client = new OpenAIChatClient({ model: 'odd-model', apiKey: KEY, baseURL });
      const error = await client.create({ messages: [{ role: 'user', content: 'hi' }] }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect(received[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
      return error;
    };
    const runError = async () => {
      const { baseURL } = await startServer([{ status, body }]);
      const workflow = new HandoffBuilder({
        participants: [
          new Agent({
            name: 'helper',
            client: new OpenAIChatClient({ model: 'odd-model', apiKey: KEY, baseURL }),
          }),
        ],
      })
        .coordinator('helper')
        .withCheckpointing(new MemoryCheckpointStore())
        .build();
      const error = await workflow.run('hi').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain('helper');
      return { error, workflow };
    };

    it(`${what}: the client's error message and stack are redacted`, async () => {
      expectNoSecret(ownText(await clientError()));
    });

    it(`${what}: the client's error logged with its causes is redacted`, async () => {
      expectNoSecret(loggedText(await clientError()));
    });

    it(`${what}: the run's error message, the thread and the saved state are redacted`, async () => {
      const { error, workflow } = await runError();
      expectNoSecret(
        [
          ownText(error),
          JSON.stringify(await workflow.session(workflow.session().id).messages()),
          JSON.stringify(await workflow.saveState()),
        ].join('\n'),
      );
    });

    it(`${what}: the run's error logged with its causes is redacted`, async () => {
      expectNoSecret(loggedText((await runError()).error));
    });
  }
});
