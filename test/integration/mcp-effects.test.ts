// API.md §17: MCP tools take their effect from the server's annotations (readOnlyHint → read, and
// it wins over idempotentHint → idempotent; else once), and mcpTools(server, {effect}) sets one
// effect for every tool. The server is test/support/raw-mcp-server.mjs, a real stdio process.
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { ConfigError, mcpTools, type ToolEffect } from '../../src/index.js';

const server = {
  command: process.execPath,
  args: [fileURLToPath(new URL('../support/raw-mcp-server.mjs', import.meta.url))],
};
const usable = { exclude: ['proto_key'] };

describe('the effect of MCP tools (API.md §17)', () => {
  it('comes from the annotations, readOnlyHint first', async () => {
    const raw = await mcpTools(server, usable);
    try {
      expect(Object.fromEntries(raw.tools.map((t) => [t.name, t.effect]))).toEqual({
        echo: 'read',
        big_reply: 'read',
        strict_word: 'once',
        odd_blocks: 'idempotent',
        shaped_word: 'once',
      });
    } finally {
      await raw.close();
    }
  });

  it('is the one given to mcpTools() for every tool, which checks it', async () => {
    const raw = await mcpTools(server, { ...usable, effect: 'idempotent' });
    try {
      expect(new Set(raw.tools.map((t) => t.effect))).toEqual(new Set(['idempotent']));
    } finally {
      await raw.close();
    }
    const bad = mcpTools(server, { ...usable, effect: 'sometimes' as ToolEffect });
    await expect(bad).rejects.toThrow(ConfigError);
    await expect(mcpTools(server, { effect: 'sometimes' as ToolEffect })).rejects.toThrow(
      'mcpTools(): `effect` must be "read", "idempotent" or "once", got "sometimes".',
    );
  });
});
