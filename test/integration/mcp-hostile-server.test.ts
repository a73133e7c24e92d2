// mcpTools() against a hand-written stdio MCP server (test/support/raw-mcp-server.mjs) that sends
// what a hostile or careless server may: a reply over the size limit, a schema whose pattern
// backtracks catastrophically, a content block of a type MCP does not define, a property named
// `__proto__`. The host process must survive each, and each must end in a clear result or error.
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { realTimer, toolExecutor } from '../../src/agents/tool-execution.js';
import {
  Agent,
  ConfigError,
  type FunctionExecutionResult,
  type McpTools,
  mcpTools,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  type Tool,
  type ToolCallExecutionEvent,
} from '../../src/index.js';

const server = {
  command: process.execPath,
  args: [fileURLToPath(new URL('../support/raw-mcp-server.mjs', import.meta.url))],
};
const usable = { exclude: ['proto_key'] };

function call(
  tools: readonly Tool[],
  name: string,
  args: unknown,
): Promise<FunctionExecutionResult> {
  const run = toolExecutor(new Map(tools.map((t) => [t.name, t])), {
    context: { signal: new AbortController().signal, sessionId: 's1', agent: 'tester' },
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

const stopped = (limit: number) =>
  `MCP server "raw-test" is not running: its process was stopped after it sent a message ` +
  `larger than ${limit} bytes (mcpTools() option maxMessageBytes).`;

describe('mcpTools() with a server that sends too much', () => {
  it('stops a server whose reply is over the default 10 MiB: that call and later ones are error results naming it', async () => {
    const raw = await mcpTools(server, usable);
    try {
      expect(await call(raw.tools, 'big_reply', { megabytes: 11 })).toEqual(
        result('big_reply', `Tool "big_reply" failed: ${stopped(10 * 1024 * 1024)}`, true),
      );
      expect(await call(raw.tools, 'echo', { text: 'still there?' })).toEqual(
        result('echo', `Tool "echo" failed: ${stopped(10 * 1024 * 1024)}`, true),
      );
    } finally {
      await raw.close();
    }
  });

  it('lets the run go on: the agent gets the error result and answers', async () => {
    const raw = await mcpTools(server, { ...usable, maxMessageBytes: 4096 });
    try {
      const client = new ScriptedChatClient([
        scriptedToolCall('big_reply', { megabytes: 0.01 }, 'call-1'),
        scriptedText('The report was too large to fetch.'),
      ]);
      const clerk = new Agent({ name: 'clerk', client, tools: raw.tools, maxToolIterations: 2 });
      const run = await new RoundRobinGroupChat([clerk], { maxTurns: 1 }).run('Fetch the report.');
      const executions = run.messages
        .filter((m): m is ToolCallExecutionEvent => m.type === 'ToolCallExecutionEvent')
        .flatMap((m) => m.content);
      expect(executions).toEqual([
        {
          callId: 'call-1',
          name: 'big_reply',
          content: `Tool "big_reply" failed: ${stopped(4096)}`,
          isError: true,
        },
      ]);
      expect(run.messages.at(-1)).toMatchObject({
        type: 'TextMessage',
        content: 'The report was too large to fetch.',
      });
    } finally {
      await raw.close();
    }
  });

  it('takes its limit from maxMessageBytes: replies under it arrive, one over it stops the server', async () => {
    const raw = await mcpTools(server, { ...usable, maxMessageBytes: 4096 });
    try {
      expect(await call(raw.tools, 'echo', { text: 'short' })).toEqual(result('echo', 'short'));
      expect(await call(raw.tools, 'big_reply', { megabytes: 0.01 })).toEqual(
        result('big_reply', `Tool "big_reply" failed: ${stopped(4096)}`, true),
      );
    } finally {
      await raw.close();
    }
  });

  it('refuses a maxMessageBytes that is not a positive whole number', async () => {
    const attempt = mcpTools(server, { maxMessageBytes: 0 });
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(
      'mcpTools(): `maxMessageBytes` must be a positive whole number of bytes, got 0.',
    );
  });
});

describe('mcpTools() with a hostile or careless server', () => {
  let raw: McpTools;
  beforeAll(async () => {
    raw = await mcpTools(server, usable);
  });
  afterAll(() => raw.close());

  // Before linear-time patterns, `^(a+)+$` on this argument froze the event loop (2^40 steps).
  it('checks a catastrophically backtracking pattern against a hostile argument at once', async () => {
    expect(await call(raw.tools, 'strict_word', { word: `${'a'.repeat(40)}!` })).toEqual(
      result(
        'strict_word',
        'Tool "strict_word" received invalid arguments: word: must match pattern "^(a+)+$". ' +
          'Fix them and call the tool again.',
        true,
      ),
    );
    expect(await call(raw.tools, 'strict_word', { word: 'aaaa' })).toEqual(
      result('strict_word', 'ok aaaa'),
    );
  });

  // The MCP SDK checks structured content against the output schema; with its default Ajv, this
  // froze the event loop too.
  it("checks a server's structured content against a backtracking output pattern at once", async () => {
    expect(await call(raw.tools, 'shaped_word', { word: `${'a'.repeat(40)}!` })).toEqual(
      result(
        'shaped_word',
        'Tool "shaped_word" failed: MCP server "raw-test" failed to answer: MCP error -32602: ' +
          "Structured content does not match the tool's output schema: word: must match pattern " +
          '"^(a+)+$"',
        true,
      ),
    );
    expect(await call(raw.tools, 'shaped_word', { word: 'aaa' })).toEqual(
      result('shaped_word', 'aaa'),
    );
  });

  it('turns a content block of a type MCP does not define into a placeholder', async () => {
    expect(await call(raw.tools, 'odd_blocks', {})).toEqual(
      result('odd_blocks', 'before\n[hologram content]\n[image image/png]'),
    );
  });

  it('refuses a tool with a property named __proto__ at mcpTools(), naming it and the way out', async () => {
    const attempt = mcpTools(server);
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(
      'mcpTools(): MCP server "raw-test" offers tool "proto_key", which cannot be used: Tool ' +
        '"proto_key": its JSON Schema `parameters` is invalid (it names a property "__proto__" ' +
        '(at /required), which cannot be checked or passed on safely; rename the property). ' +
        'Fix the schema. Leave it out with exclude: ["proto_key"].',
    );
  });
});
