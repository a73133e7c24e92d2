// Helpers of the independent MCP suite: how to start the servers (never through npx: the node
// running the tests and a resolved entry script), one agent turn with scripted tool calls, and the
// child processes of this test process as Linux reports them.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { expect } from 'vitest';

import {
  Agent,
  type AgentMessage,
  type FunctionExecutionResult,
  RoundRobinGroupChat,
  ScriptedChatClient,
  type ScriptedStep,
  type TaskResult,
  type Tool,
  type ToolCallExecutionEvent,
} from '../../../../src/index.js';
import type { RecordedCall } from './order-tools.mjs';

const require = createRequire(import.meta.url);
const HERE = dirname(fileURLToPath(import.meta.url));

/** The stdio order-desk script (its path is part of how an error may name the server). */
export const ORDER_STDIO_SCRIPT = join(HERE, 'order-stdio-server.mjs');

/** A stdio order-desk server to start, with its event log. */
export interface OrderStdio {
  server: { command: string; args: string[] };
  log: string;
  /** The `tools/call`s the server received, oldest first. */
  calls(): RecordedCall[];
  /** The pid the server logged when it started. */
  pid(): number;
}

/** How to start the stdio order-desk server (flags: see order-stdio-server.mjs). */
export function orderStdio(flags: string[] = []): OrderStdio {
  const log = join(mkdtempSync(join(tmpdir(), 'baton-mcp-')), 'events.jsonl');
  const events = (): Record<string, unknown>[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as Record<string, unknown>)
      : [];
  return {
    server: {
      command: process.execPath,
      args: [ORDER_STDIO_SCRIPT, '--log', log, ...flags],
    },
    log,
    calls: () =>
      events()
        .filter((e) => e.event === 'call')
        .map((e) => ({
          name: e.name as string,
          arguments: e.arguments as RecordedCall['arguments'],
        })),
    pid: () => {
      const start = events().find((e) => e.event === 'start');
      if (start === undefined) throw new Error(`the server never logged its start in ${log}`);
      return start.pid as number;
    },
  };
}

/** The absolute path of the `bin` script of an installed npm package. */
export function binEntry(pkg: string): string {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    bin: string | Record<string, string>;
  };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0];
  if (bin === undefined) throw new Error(`${pkg} has no bin`);
  return join(dirname(manifestPath), bin);
}

/** The results of every `ToolCallExecutionEvent` among `messages`, in order. */
export function executionResults(messages: readonly AgentMessage[]): FunctionExecutionResult[] {
  return messages
    .filter((m): m is ToolCallExecutionEvent => m.type === 'ToolCallExecutionEvent')
    .flatMap((m) => m.content);
}

/** One turn of an agent named `clerk` with `tools`, answering with `steps`, in a one-turn team. */
export async function runClerk(
  tools: readonly Tool[],
  steps: ScriptedStep[],
  options: { maxToolIterations?: number; signal?: AbortSignal } = {},
): Promise<{ client: ScriptedChatClient; result: TaskResult; results: FunctionExecutionResult[] }> {
  const client = new ScriptedChatClient(steps);
  const clerk = new Agent({
    name: 'clerk',
    client,
    tools,
    maxToolIterations: options.maxToolIterations ?? 1,
  });
  const team = new RoundRobinGroupChat([clerk], { maxTurns: 1 });
  const result = await team.run(
    'Please check my order.',
    options.signal ? { signal: options.signal } : {},
  );
  return { client, result, results: executionResults(result.messages) };
}

/** The ids of this process's child processes (Linux /proc). */
export function childPids(): number[] {
  const taskDir = `/proc/${process.pid}/task`;
  const pids = new Set<number>();
  for (const tid of readdirSync(taskDir)) {
    const text = readFileSync(join(taskDir, tid, 'children'), 'utf8').trim();
    for (const pid of text.split(/\s+/).filter((s) => s !== '')) pids.add(Number(pid));
  }
  return [...pids];
}

/** True while `pid` is a live process (a zombie counts as gone). */
export function isRunning(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

/** Waits (checking every 20 ms, at most `limitMs`) until `pid` is gone; false if it never went. */
export async function waitUntilGone(pid: number, limitMs = 5000): Promise<boolean> {
  for (let waited = 0; waited < limitMs; waited += 20) {
    if (!isRunning(pid)) return true;
    await delay(20);
  }
  return !isRunning(pid);
}

/** Waits (checking every 20 ms, at most `limitMs`) until `condition()` holds; false if never. */
export async function until(condition: () => boolean, limitMs = 10_000): Promise<boolean> {
  for (let waited = 0; waited < limitMs; waited += 20) {
    if (condition()) return true;
    await delay(20);
  }
  return condition();
}

/** Asserts that an error text names the server by one of the ways it can be named. */
export function expectNamesServer(text: string, names: readonly string[]): void {
  expect(
    names.some((name) => text.includes(name)),
    `expected ${JSON.stringify(text)} to name the server as one of ${JSON.stringify(names)}`,
  ).toBe(true);
}
