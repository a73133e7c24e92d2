import { type ChildProcess, spawn } from 'node:child_process';

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import { fieldOf } from '../../unknown-value.js';
import type { McpSdk } from './load-mcp-sdk.js';
import type { CheckedServerConfig } from './mcp-server-config.js';
import { MessageLines } from './message-lines.js';

type StdioConfig = Extract<CheckedServerConfig, { kind: 'stdio' }>;

/** How much of the server's stderr is kept for messages. */
const STDERR_TAIL = 2000;
/** How long `close()` lets the server end after SIGTERM before it sends SIGKILL. */
const KILL_AFTER_MS = 2000;

/** Every server child still running, ended when this process exits. */
const running = new Set<ChildProcess>();
const endAll = () => {
  for (const child of running) child.kill('SIGTERM');
};

/**
 * The stdio transport of an MCP server in a child process, with the SDK's message framing. It
 * replaces the SDK's `StdioClientTransport` for four things that one does not give: how the
 * process ended (`exitDescription`, for the error results of later calls), the tail of its stderr
 * (for a server that fails to start), a connection that does not keep Node running while idle
 * (see `hold`), and a message larger than `maxMessageBytes` that stops the server instead of
 * throwing inside a stream listener, which ends the host process.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #config: StdioConfig;
  readonly #sdk: McpSdk;
  readonly #lines: MessageLines;
  readonly #maxMessageBytes: number;
  #child: ChildProcess | undefined;
  #stderr = '';
  #exit: string | undefined;
  #exited: Promise<void> | undefined;
  #closed = false;
  #stopping: Promise<void> | undefined;

  constructor(config: StdioConfig, sdk: McpSdk, maxMessageBytes: number) {
    this.#config = config;
    this.#sdk = sdk;
    this.#maxMessageBytes = maxMessageBytes;
    this.#lines = new MessageLines(maxMessageBytes);
  }

  /**
   * How the process ended (`exited with code 1`, `was killed by SIGKILL`), once it has, or why
   * it is being stopped (a message over the size limit).
   */
  get exitDescription(): string | undefined {
    return this.#exit;
  }

  /** The last lines the server wrote to stderr, trimmed. */
  get stderrTail(): string {
    return this.#stderr.trim();
  }

  start(): Promise<void> {
    if (this.#child !== undefined) throw new Error('StdioTransport.start() was called twice.');
    const { command, args, env, cwd } = this.#config;
    const child = spawn(command, args, {
      env: { ...this.#sdk.getDefaultEnvironment(), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      windowsHide: true,
      ...(cwd === undefined ? {} : { cwd }),
    });
    this.#child = child;
    this.#exited = new Promise((resolve) => {
      child.on('close', (code, signal) => {
        this.#closed = true;
        this.#exit ??=
          signal !== null ? `was killed by ${signal}` : `exited with code ${String(code)}`;
        running.delete(child);
        if (running.size === 0) process.off('exit', endAll);
        resolve();
        this.onclose?.();
      });
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      if (this.#stopping !== undefined) return;
      const { lines, tooLarge } = this.#lines.push(chunk);
      // A line that is not JSON-RPC (a stray console.log in the server) is reported and skipped,
      // so the messages after it in the chunk still arrive.
      for (const line of lines) {
        let message: JSONRPCMessage;
        try {
          message = this.#sdk.deserializeMessage(line);
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          continue;
        }
        this.onmessage?.(message);
      }
      // The rest of the stream cannot be framed reliably, and which request the message answered
      // is unknown: the server is stopped, so its pending calls (and later ones) fail at once.
      if (tooLarge) {
        this.#exit ??=
          `was stopped after it sent a message larger than ${this.#maxMessageBytes} bytes ` +
          '(mcpTools() option maxMessageBytes)';
        this.#stopping = this.#stop();
      }
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      this.#stderr = (this.#stderr + text).slice(-STDERR_TAIL);
    });
    // A write to a server that just died fails with EPIPE; its exit is reported by `close`.
    child.stdin?.on('error', (error) => this.onerror?.(error));
    child.stdout?.on('error', (error) => this.onerror?.(error));
    return new Promise((resolve, reject) => {
      child.once('spawn', () => {
        if (running.size === 0) process.on('exit', endAll);
        running.add(child);
        resolve();
      });
      child.once('error', (error) => {
        this.#exit = `could not be started (${error.message})`;
        reject(error);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin == null || this.#exit !== undefined || !stdin.writable) {
      return Promise.reject(new Error('the server process is not running'));
    }
    return new Promise((resolve) => {
      if (stdin.write(this.#sdk.serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /**
   * Whether an idle connection keeps Node running. While a request is pending the SDK's request
   * timer holds the event loop, so the pipes are unreferenced between calls: a program that
   * forgets `close()` still ends (and its server is ended with it).
   */
  hold(on: boolean): void {
    const child = this.#child;
    if (child === undefined) return;
    for (const handle of [child, child.stdin, child.stdout, child.stderr]) {
      // The child has ref() and unref(); its pipes, typed as plain streams, are sockets that do.
      const method = fieldOf(handle, on ? 'ref' : 'unref');
      if (typeof method === 'function') method.call(handle);
    }
  }

  /** Ends the server: closes its stdin, sends SIGTERM, and SIGKILL if it is still there later. */
  async close(): Promise<void> {
    if (this.#child === undefined || this.#closed) return;
    this.#stopping ??= this.#stop();
    await this.#stopping;
  }

  async #stop(): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    this.hold(true);
    child.stdin?.end();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    await this.#exited;
    clearTimeout(timer);
    this.#lines.clear();
  }
}
