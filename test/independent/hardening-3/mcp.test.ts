// Hostile MCP / JSON Schema tests: a >10 MB stdio reply, a catastrophically backtracking pattern.
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import {
  Agent,
  type AgentOptions,
  type AgentMessage,
  mcpTools,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  TextMessageTermination,
  tool,
} from '../../../src/index.js';

const RAW = fileURLToPath(new URL('../../support/raw-mcp-server.mjs', import.meta.url));
const HOSTILE = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!';

function results(messages: readonly AgentMessage[]) {
  return messages.flatMap((m) => (m.type === 'ToolCallExecutionEvent' ? m.content : []));
}

function team(tools: NonNullable<AgentOptions['tools']>, calls: { name: string; args: unknown }[]) {
  const agent = new Agent({
    name: 'clerk',
    tools,
    maxToolIterations: calls.length + 1,
    client: new ScriptedChatClient([
      ...calls.map((c, i) => ({
        toolCalls: [{ id: `call_${i}`, name: c.name, arguments: JSON.stringify(c.args) }],
      })),
      scriptedText('finished'),
    ]),
  });
  return new RoundRobinGroupChat([agent], {
    terminationCondition: new TextMessageTermination('clerk'),
  });
}

describe('MCP stdio server reply over 10 MB', () => {
  it('the host survives, the call is an error result naming the server, the run goes on', async () => {
    const server = await mcpTools(
      { command: process.execPath, args: [RAW] },
      { exclude: ['proto_key'] },
    );
    try {
      const run = await team(server.tools, [
        { name: 'big_reply', args: { megabytes: 11 } },
        { name: 'echo', args: { text: 'after' } },
      ]).run('go');
      const [big, echo] = results(run.messages);
      expect(big?.isError).toBe(true);
      expect(big?.content).toContain('raw-test');
      expect(big!.content.length).toBeLessThan(10_000);
      expect(run.status).toBe('terminated');
      expect(run.messages.at(-1)?.content).toBe('finished');
      // "the run goes on": the next call is answered (by the server or as an error naming it)
      expect(echo?.callId).toBe('call_1');
      if (echo?.isError) expect(echo.content).toContain('raw-test');
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('catastrophically backtracking pattern ^(a+)+$', () => {
  it('MCP tool: the run completes with an error result for the hostile argument', async () => {
    const server = await mcpTools(
      { command: process.execPath, args: [RAW] },
      { exclude: ['proto_key'] },
    );
    try {
      const run = await team(server.tools, [{ name: 'strict_word', args: { word: HOSTILE } }]).run(
        'go',
      );
      const [result] = results(run.messages);
      expect(result?.isError).toBe(true);
      expect(result?.content).toContain('strict_word');
      expect(run.messages.at(-1)?.content).toBe('finished');
    } finally {
      await server.close();
    }
  }, 30_000);

  it('hand-written JSON Schema tool: the run completes with an error result', async () => {
    let executed = 0;
    const strict = tool({
      name: 'strict_word',
      description: 'Only a words.',
      parameters: {
        type: 'object',
        properties: { word: { type: 'string', pattern: '^(a+)+$' } },
        required: ['word'],
      },
      execute: () => {
        executed += 1;
        return 'ok';
      },
    });
    const run = await team([strict], [{ name: 'strict_word', args: { word: HOSTILE } }]).run('go');
    const [result] = results(run.messages);
    expect(result?.isError).toBe(true);
    expect(executed).toBe(0);
    expect(run.messages.at(-1)?.content).toBe('finished');
  }, 30_000);

  it('pattern inside patternProperties / nested items is also safe', async () => {
    const strict = tool({
      name: 'nested',
      description: 'Nested.',
      parameters: {
        type: 'object',
        properties: {
          list: { type: 'array', items: { type: 'string', pattern: '^(a+)+$' } },
          map: {
            type: 'object',
            patternProperties: { '^(a+)+$': { type: 'string' } },
            additionalProperties: false,
          },
        },
      },
      execute: () => 'ok',
    });
    const run = await team(
      [strict],
      [{ name: 'nested', args: { list: [HOSTILE], map: { [HOSTILE]: 'x' } } }],
    ).run('go');
    const [result] = results(run.messages);
    expect(result?.isError).toBe(true);
    expect(run.messages.at(-1)?.content).toBe('finished');
  }, 30_000);
});
