// API.md §12 with the common rule "bad input → clear error, never silent data loss": options of
// mcpTools that cannot be right reject with a ConfigError that names the bad value, and a rejected
// mcpTools leaves no server process behind.
import { describe, expect, it } from 'vitest';

import { ConfigError, mcpTools } from '../../../src/index.js';
import { childPids, orderStdio, waitUntilGone } from './support/mcp-kit.js';

/** Runs `attempt`, which must reject, and checks that no child process it started is left. */
async function rejection(attempt: () => Promise<unknown>): Promise<unknown> {
  const before = childPids();
  const error = await attempt().then(
    () => new Error('expected mcpTools to reject'),
    (e: unknown) => e,
  );
  for (const pid of childPids().filter((p) => !before.includes(p))) {
    expect(await waitUntilGone(pid, 3000)).toBe(true);
  }
  return error;
}

describe('mcpTools: configuration errors', () => {
  it('include naming a tool the server does not offer is a ConfigError naming it', async () => {
    const error = await rejection(() =>
      mcpTools(orderStdio().server, { include: ['lookup_order', 'lookup_ordr'] }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('lookup_ordr');
  });

  it('a server config with neither command nor url is a ConfigError', async () => {
    const error = await rejection(() => mcpTools({} as Parameters<typeof mcpTools>[0]));
    expect(error).toBeInstanceOf(ConfigError);
  });

  it('a prefix that makes invalid tool names is a ConfigError naming it', async () => {
    const error = await rejection(() => mcpTools(orderStdio().server, { prefix: 'my orders' }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('my orders');
  });

  it('a program that cannot be started rejects naming it and leaves no child behind', async () => {
    const missing = '/nonexistent/baton-mcp-server.js';
    const error = await rejection(() => mcpTools({ command: process.execPath, args: [missing] }));
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(missing);
  });
});
