// mcpTools() against @modelcontextprotocol/server-everything (the protocol's reference server),
// installed from npm as a devDependency and started with this Node and its entry script.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { realTimer, toolExecutor } from '../../src/agents/tool-execution.js';
import {
  ConfigError,
  type FunctionExecutionResult,
  type McpTools,
  mcpTools,
  type Tool,
} from '../../src/index.js';
import { serverEntry } from '../support/mcp-servers.js';

const server = {
  command: process.execPath,
  args: [serverEntry('@modelcontextprotocol/server-everything'), 'stdio'],
};

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

describe('mcpTools() with the everything server over stdio', () => {
  let everything: McpTools;
  beforeAll(async () => {
    everything = await mcpTools(server, {
      include: [
        'echo',
        'get-sum',
        'get-tiny-image',
        'get-resource-links',
        'get-resource-reference',
      ],
      exclude: ['get-resource-links'],
      needsApproval: ['get-sum'],
    });
  });
  afterAll(() => everything.close());

  it('offers the included tools, less the excluded, with their schemas and approval flags', () => {
    expect(everything.serverName).toBe('mcp-servers/everything');
    expect(everything.tools.map((t) => [t.name, t.needsApproval])).toEqual([
      ['echo', false],
      ['get-resource-reference', false],
      ['get-sum', true],
      ['get-tiny-image', false],
    ]);
    expect(everything.tools.find((t) => t.name === 'get-sum')?.schema).toEqual({
      name: 'get-sum',
      description: 'Returns the sum of two numbers',
      parameters: {
        type: 'object',
        properties: {
          a: { type: 'number', description: 'First number' },
          b: { type: 'number', description: 'Second number' },
        },
        required: ['a', 'b'],
        $schema: 'http://json-schema.org/draft-07/schema#',
      },
    });
  });

  it('echoes and adds', async () => {
    expect(await call(everything.tools, 'echo', { message: 'baton' })).toEqual(
      result('echo', 'Echo: baton'),
    );
    expect(await call(everything.tools, 'get-sum', { a: 2.5, b: 4 })).toEqual(
      result('get-sum', 'The sum of 2.5 and 4 is 6.5.'),
    );
  });

  it('checks arguments against the schema before the call', async () => {
    expect(await call(everything.tools, 'get-sum', { a: '2' })).toEqual(
      result(
        'get-sum',
        'Tool "get-sum" received invalid arguments: b: is required; a: must be number. ' +
          'Fix them and call the tool again.',
        true,
      ),
    );
  });

  it('gives an error result for a tool that fails on the server', async () => {
    expect(await call(everything.tools, 'get-resource-reference', { resourceId: 0 })).toEqual(
      result(
        'get-resource-reference',
        'Tool "get-resource-reference" failed: Invalid resourceId: 0. Must be a finite positive integer.',
        true,
      ),
    );
  });

  it('keeps text and puts short placeholders for images and binary resources', async () => {
    expect(await call(everything.tools, 'get-tiny-image', {})).toEqual(
      result(
        'get-tiny-image',
        "Here's the image you requested:\n[image image/png]\nThe image above is the MCP logo.",
      ),
    );
    expect(
      await call(everything.tools, 'get-resource-reference', {
        resourceType: 'Blob',
        resourceId: 2,
      }),
    ).toEqual(
      result(
        'get-resource-reference',
        'Returning resource reference for Resource 2:\n' +
          '[resource demo://resource/dynamic/blob/2 text/plain]\n' +
          'You can access this resource using the URI: demo://resource/dynamic/blob/2',
      ),
    );
  });
});

describe('mcpTools() options', () => {
  it('rejects bad options before starting anything', async () => {
    await expect(mcpTools(server, { prefix: 'my tools' })).rejects.toThrow(
      'mcpTools(): prefix "my tools" is invalid. Use 1 to 63 letters, digits, "_" or "-".',
    );
    await expect(mcpTools(server, { include: 'echo' as unknown as string[] })).rejects.toThrow(
      'mcpTools(): `include` must be an array of tool names.',
    );
    await expect(mcpTools(server, { needsApproval: 'yes' as unknown as boolean })).rejects.toThrow(
      'mcpTools(): `needsApproval` must be true, false, an array of tool names or a function.',
    );
    await expect(mcpTools(server, { timeoutMs: -1 })).rejects.toThrow(
      'mcpTools(): `timeoutMs` must be a positive number of milliseconds, got -1.',
    );
  });

  it('names what the server lacks when include or needsApproval names an unknown tool', async () => {
    const attempt = mcpTools(server, { include: ['echo', 'add'] });
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(
      'mcpTools(): `include` names "add", which MCP server "mcp-servers/everything" does not ' +
        'offer. Its tools: echo, get-annotated-message, get-env, get-resource-links, ' +
        'get-resource-reference, get-structured-content, get-sum, get-tiny-image, ' +
        'gzip-file-as-resource, toggle-simulated-logging, toggle-subscriber-updates, ' +
        'trigger-long-running-operation, simulate-research-query.',
    );
  });

  it('carries a needsApproval function onto every tool', async () => {
    const decide = (args: Record<string, unknown>) => args.message === 'rm -rf';
    const tools = await mcpTools(server, {
      include: ['echo'],
      needsApproval: decide,
      prefix: 'ev',
    });
    expect(tools.tools.map((t) => [t.name, t.needsApproval])).toEqual([['ev_echo', decide]]);
    await tools.close();
  });
});
