// mcpTools() over Streamable HTTP, against a server the test builds with the MCP SDK on 127.0.0.1.
import { describe, expect, it } from 'vitest';

import { realTimer, toolExecutor } from '../../src/agents/tool-execution.js';
import {
  Agent,
  type FunctionExecutionResult,
  mcpTools,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  TextMessageTermination,
  type Tool,
  type ToolCallExecutionEvent,
} from '../../src/index.js';
import { type HttpTestTool, startHttpMcpServer } from '../support/mcp-servers.js';

const bookRoom: HttpTestTool = {
  name: 'book_room',
  description: 'Books a meeting room.',
  inputSchema: {
    type: 'object',
    properties: {
      room: { type: 'string', enum: ['Ada', 'Grace'] },
      people: { type: 'integer', minimum: 1, maximum: 12 },
      date: { type: 'string', format: 'date' },
    },
    required: ['room', 'people', 'date'],
    additionalProperties: false,
  },
  answer: (args) => ({
    content: [{ type: 'text', text: `Booked ${String(args.room)} for ${String(args.people)}.` }],
  }),
};
const floorPlan: HttpTestTool = {
  name: 'floor_plan',
  description: 'Shows the floor plan.',
  inputSchema: { type: 'object', properties: {} },
  answer: () => ({
    content: [
      { type: 'text', text: 'Floor 2:' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'https://rooms.example/plan.pdf', name: 'plan' },
      { type: 'resource', resource: { uri: 'file:///legend.txt', text: 'Legend: A = Ada' } },
    ],
  }),
};
const cancel: HttpTestTool = {
  name: 'cancel_booking',
  description: 'Cancels a booking.',
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  answer: (args) => ({
    content: [{ type: 'text', text: `No booking ${String(args.id)}.` }],
    isError: true,
  }),
};

function call(
  tools: readonly Tool[],
  name: string,
  args: unknown,
): Promise<FunctionExecutionResult> {
  const run = toolExecutor(new Map(tools.map((t) => [t.name, t])), {
    context: { signal: new AbortController().signal, sessionId: 's1', agent: 'desk' },
    offered: tools.map((t) => t.name),
    timer: realTimer,
  });
  return run({ id: 'c1', name, arguments: JSON.stringify(args) });
}

const result = (name: string, content: string, isError = false) => ({
  callId: 'c1',
  name,
  content,
  isError,
});

describe('mcpTools() over Streamable HTTP', () => {
  it('sends the headers, passes schemas through and calls the tools', async () => {
    const server = await startHttpMcpServer([bookRoom, floorPlan, cancel]);
    const rooms = await mcpTools(
      { url: server.url, headers: { authorization: 'Bearer t0ken' } },
      { prefix: 'rooms' },
    );
    expect(rooms.serverName).toBe('http-test');
    expect(rooms.tools.map((t) => t.schema)).toEqual(
      [bookRoom, floorPlan, cancel].map((t) => ({
        name: `rooms_${t.name}`,
        description: t.description,
        parameters: t.inputSchema,
      })),
    );
    expect(
      await call(rooms.tools, 'rooms_book_room', { room: 'Ada', people: 4, date: '2026-12-01' }),
    ).toEqual(result('rooms_book_room', 'Booked Ada for 4.'));
    expect(await call(rooms.tools, 'rooms_floor_plan', {})).toEqual(
      result(
        'rooms_floor_plan',
        'Floor 2:\n[image image/png]\n[audio audio/wav]\n' +
          '[resource_link https://rooms.example/plan.pdf]\nLegend: A = Ada',
      ),
    );
    expect(await call(rooms.tools, 'rooms_cancel_booking', { id: 'B-9' })).toEqual(
      result('rooms_cancel_booking', 'Tool "rooms_cancel_booking" failed: No booking B-9.', true),
    );
    await rooms.close();
    expect(server.seen).toEqual([
      'initialize Bearer t0ken',
      'call book_room {"room":"Ada","people":4,"date":"2026-12-01"}',
      'call floor_plan {}',
      'call cancel_booking {"id":"B-9"}',
      'closed',
    ]);
    await server.stop();
  });

  it('never sends arguments that fail the schema', async () => {
    const server = await startHttpMcpServer([bookRoom]);
    const rooms = await mcpTools({ url: server.url });
    expect(
      await call(rooms.tools, 'book_room', { room: 'Hopper', people: 40, date: 'soon', floor: 2 }),
    ).toEqual(
      result(
        'book_room',
        'Tool "book_room" received invalid arguments: floor: is not allowed; ' +
          'room: must be equal to one of the allowed values; people: must be <= 12; ' +
          'date: must match format "date". Fix them and call the tool again.',
        true,
      ),
    );
    await rooms.close();
    expect(server.seen).toEqual(['initialize (none)', 'closed']);
    await server.stop();
  });

  it('goes on with an error result naming the server when the server goes away', async () => {
    const server = await startHttpMcpServer([bookRoom]);
    const rooms = await mcpTools({ url: server.url });
    const client = new ScriptedChatClient([
      scriptedToolCall('book_room', { room: 'Grace', people: 2, date: '2026-12-02' }, 'b1'),
      scriptedText('The booking system is down; please try later.'),
    ]);
    const desk = new Agent({ name: 'desk', client, tools: rooms.tools, maxToolIterations: 2 });
    const team = new RoundRobinGroupChat([desk], {
      terminationCondition: new TextMessageTermination('desk'),
    });
    await server.stop();
    const run = await team.run('Book Grace for two tomorrow.');
    expect(run.status).toBe('terminated');
    expect(run.messages[2]?.type).toBe('ToolCallExecutionEvent');
    const [outcome] = (run.messages[2] as ToolCallExecutionEvent).content;
    // Whether fetch reuses the pooled connection the server just dropped or opens a new one is
    // up to its pool; either way the call fails and the error names the server.
    const failed = 'Tool "book_room" failed: MCP server "http-test" failed to answer: fetch failed';
    expect([
      `${failed} (connect ECONNREFUSED ${new URL(server.url).host})`,
      `${failed} (other side closed)`,
    ]).toContain(outcome?.content);
    expect(outcome).toMatchObject({ callId: 'b1', name: 'book_room', isError: true });
    expect(run.messages.at(-1)).toMatchObject({
      type: 'TextMessage',
      content: 'The booking system is down; please try later.',
    });
    await rooms.close();
  });

  it('says why a server cannot be reached', async () => {
    const server = await startHttpMcpServer([]);
    await server.stop();
    await expect(mcpTools({ url: `${server.url}?token=secret` })).rejects.toThrow(
      `mcpTools(): cannot connect to MCP server \`${server.url}\`: fetch failed (connect ` +
        `ECONNREFUSED ${new URL(server.url).host}). ` +
        'Check the URL and the headers, and that the server is running.',
    );
    const toolless = await startHttpMcpServer([], { offersTools: false });
    await expect(mcpTools({ url: toolless.url })).rejects.toThrow(
      'mcpTools(): cannot list the tools of MCP server "http-test": MCP error -32601: Method not ' +
        'found. Check that the server offers tools.',
    );
    expect(toolless.seen).toEqual(['initialize (none)', 'closed']);
    await toolless.stop();
    await expect(mcpTools({ url: 'ftp://127.0.0.1/mcp' })).rejects.toThrow(
      'mcpTools(): url "ftp://127.0.0.1/mcp" is not an http(s) URL.',
    );
  });
});
