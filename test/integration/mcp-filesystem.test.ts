// mcpTools() against @modelcontextprotocol/server-filesystem, installed from npm as a
// devDependency and started with this Node and its entry script: nothing is downloaded.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
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
  TextMessageTermination,
  type Tool,
} from '../../src/index.js';
import { childPids, processesMatching, serverEntry } from '../support/mcp-servers.js';

const entry = serverEntry('@modelcontextprotocol/server-filesystem');
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-mcp-')));
writeFileSync(join(dir, 'notes.txt'), 'Ship on Friday.\nCall Ada first.\n');
const server = { command: process.execPath, args: [entry, dir] };

/** Runs one call of one of `tools` outside any agent, as an agent's tool loop would. */
function call(
  tools: readonly Tool[],
  name: string,
  args: unknown,
): Promise<FunctionExecutionResult> {
  const run = toolExecutor(new Map(tools.map((t) => [t.name, t])), {
    context: { signal: new AbortController().signal, sessionId: 's1', agent: 'clerk' },
    offered: tools.map((t) => t.name),
    timer: realTimer,
  });
  return run({ id: 'c1', name, arguments: JSON.stringify(args) });
}

const ok = (name: string, content: string) => ({ callId: 'c1', name, content, isError: false });
const failed = (name: string, content: string) => ({ callId: 'c1', name, content, isError: true });

describe('mcpTools() with the filesystem server over stdio', () => {
  let files: McpTools;
  beforeAll(async () => {
    files = await mcpTools(server, {
      prefix: 'files',
      include: ['read_text_file', 'list_directory'],
    });
  });
  afterAll(() => files.close());

  it("keeps the server's names (prefixed), descriptions and JSON Schemas unchanged", async () => {
    expect(files.serverName).toBe('secure-filesystem-server');
    expect(files.tools.map((t) => t.name)).toEqual([
      'files_read_text_file',
      'files_list_directory',
    ]);
    expect(files.tools[1]?.schema).toEqual({
      name: 'files_list_directory',
      description:
        'Get a detailed listing of all files and directories in a specified path. Results clearly ' +
        'distinguish between files and directories with [FILE] and [DIR] prefixes. This tool is ' +
        'essential for understanding directory structure and finding specific files within a ' +
        'directory. Only works within allowed directories.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
        $schema: 'http://json-schema.org/draft-07/schema#',
      },
    });
    // What the SDK's own client lists, field for field.
    const raw = new Client({ name: 'raw', version: '1' });
    await raw.connect(new StdioClientTransport({ ...server, stderr: 'ignore' }));
    const listed = (await raw.listTools()).tools.filter((t) =>
      ['read_text_file', 'list_directory'].includes(t.name),
    );
    await raw.close();
    expect(files.tools.map((t) => t.schema)).toEqual(
      listed.map((t) => ({
        name: `files_${t.name}`,
        description: t.description,
        parameters: t.inputSchema,
      })),
    );
  });

  it('reads the file the test wrote and lists the directory', async () => {
    expect(
      await call(files.tools, 'files_read_text_file', { path: join(dir, 'notes.txt') }),
    ).toEqual(ok('files_read_text_file', 'Ship on Friday.\nCall Ada first.\n'));
    expect(
      await call(files.tools, 'files_read_text_file', { path: join(dir, 'notes.txt'), head: 1 }),
    ).toEqual(ok('files_read_text_file', 'Ship on Friday.'));
    expect(await call(files.tools, 'files_list_directory', { path: dir })).toEqual(
      ok('files_list_directory', '[FILE] notes.txt'),
    );
  });

  it("turns the server's isError result and arguments that fail the schema into error results", async () => {
    expect(await call(files.tools, 'files_read_text_file', { path: '/etc/hostname' })).toEqual(
      failed(
        'files_read_text_file',
        `Tool "files_read_text_file" failed: Access denied - path outside allowed directories: /etc/hostname not in ${dir}`,
      ),
    );
    expect(await call(files.tools, 'files_read_text_file', { path: 7, head: 'one' })).toEqual(
      failed(
        'files_read_text_file',
        'Tool "files_read_text_file" received invalid arguments: path: must be string; ' +
          'head: must be number. Fix them and call the tool again.',
      ),
    );
  });
});

describe('mcpTools() and the life of a stdio server', () => {
  it('close() ends the connection and the child process; later calls are error results', async () => {
    const files = await mcpTools(server, { include: ['list_directory'] });
    expect(childPids(entry)).toHaveLength(1);
    await files.close();
    expect(childPids(entry)).toEqual([]);
    expect(await call(files.tools, 'list_directory', { path: dir })).toEqual(
      failed(
        'list_directory',
        'Tool "list_directory" failed: MCP server "secure-filesystem-server" is closed: ' +
          'close() was called on its tools.',
      ),
    );
    await files.close();
  });

  it('goes on with an error result naming the server when the server is killed mid-session', async () => {
    const files = await mcpTools(server, { prefix: 'files', include: ['read_text_file'] });
    const client = new ScriptedChatClient([
      scriptedToolCall('files_read_text_file', { path: join(dir, 'notes.txt') }, 'read-1'),
      scriptedText('The notes say to ship on Friday.'),
      scriptedToolCall('files_read_text_file', { path: join(dir, 'notes.txt') }, 'read-2'),
      scriptedText('I cannot reach the files right now.'),
    ]);
    const clerk = new Agent({ name: 'clerk', client, tools: files.tools, maxToolIterations: 2 });
    const team = new RoundRobinGroupChat([clerk], {
      terminationCondition: new TextMessageTermination('clerk'),
    });
    const first = await team.run('What do the notes say?');
    expect(first.messages.at(-1)).toMatchObject({ content: 'The notes say to ship on Friday.' });

    const [pid] = childPids(entry);
    process.kill(pid as number, 'SIGKILL');
    const second = await team.run('Read them again.');
    expect(second.status).toBe('terminated');
    expect(second.stopReason).toBe("Text message received from 'clerk'");
    expect(second.messages.map((m) => m.type)).toEqual([
      'TextMessage',
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
      'TextMessage',
    ]);
    const failure = {
      callId: 'read-2',
      name: 'files_read_text_file',
      content:
        'Tool "files_read_text_file" failed: MCP server "secure-filesystem-server" is not ' +
        'running: its process was killed by SIGKILL.',
      isError: true,
    };
    expect(second.messages[2]).toMatchObject({ content: [failure] });
    expect(second.messages[3]).toMatchObject({ content: 'I cannot reach the files right now.' });
    expect(client.calls[3]?.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'read-2',
      content: failure.content,
    });
    await files.close();
  });

  it('lets a program that never calls close() end, and ends its server with it', async () => {
    const own = mkdtempSync(join(dir, 'forgotten-'));
    const program =
      "import { mcpTools } from './src/index.ts';" +
      `const files = await mcpTools({ command: process.execPath, args: [${JSON.stringify(entry)}, ${JSON.stringify(own)}] });` +
      'console.log(files.serverName, files.tools.length);';
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', program],
      {
        encoding: 'utf8',
        timeout: 15_000,
      },
    );
    expect({ status: run.status, stdout: run.stdout }).toEqual({
      status: 0,
      stdout: 'secure-filesystem-server 14\n',
    });
    // The server got SIGTERM and end-of-file as the program exited; it ends a moment later.
    await expect.poll(() => processesMatching(own), { timeout: 5000 }).toEqual([]);
  });

  it('says why a server that exits at start cannot be used, and cleans up', async () => {
    const missing = join(dir, 'missing');
    const attempt = mcpTools({ command: process.execPath, args: [entry, missing] });
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(
      `mcpTools(): cannot connect to MCP server \`${process.execPath} ${entry} ${missing}\`: ` +
        `its process exited with code 1 (stderr: "Warning: Cannot access directory ${missing}, ` +
        'skipping\\nError: None of the specified directories are accessible"). Check the command ' +
        'and its arguments, and that the server starts on its own.',
    );
    await expect(mcpTools({ command: 'no-such-mcp-server-17' })).rejects.toThrow(
      'mcpTools(): cannot connect to MCP server `no-such-mcp-server-17`: its process could not be ' +
        'started (spawn no-such-mcp-server-17 ENOENT). Check the command and its arguments, and ' +
        'that the server starts on its own.',
    );
    expect(childPids(entry)).toEqual([]);
  });

  it('refuses include/exclude names the server does not offer, and stops the server it started', async () => {
    await expect(mcpTools(server, { exclude: ['write_file', 'delete_file'] })).rejects.toThrow(
      'mcpTools(): `exclude` names "delete_file", which MCP server "secure-filesystem-server" ' +
        'does not offer. Its tools: read_file, read_text_file, read_media_file, ' +
        'read_multiple_files, write_file, edit_file, create_directory, list_directory, ' +
        'list_directory_with_sizes, directory_tree, move_file, search_files, get_file_info, ' +
        'list_allowed_directories.',
    );
    expect(childPids(entry)).toEqual([]);
  });
});
