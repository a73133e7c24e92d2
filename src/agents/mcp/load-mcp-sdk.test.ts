import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { ConfigError } from '../../errors.js';
import { loadMcpSdk } from './load-mcp-sdk.js';

/** Every source file of src/, tests left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('loadMcpSdk()', () => {
  it('loads the SDK when it is installed', async () => {
    const sdk = await loadMcpSdk();
    expect(typeof sdk.Client).toBe('function');
    expect(sdk.serializeMessage({ jsonrpc: '2.0', method: 'ping', id: 1 })).toBe(
      '{"jsonrpc":"2.0","method":"ping","id":1}\n',
    );
  });

  it('names the package and the install command when it is missing', async () => {
    const missing = Object.assign(
      new Error(
        "Cannot find package '@modelcontextprotocol/sdk' imported from /app/dist/agents/mcp/load-mcp-sdk.js",
      ),
      { code: 'ERR_MODULE_NOT_FOUND' },
    );
    const attempt = loadMcpSdk(() => Promise.reject(missing));
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(
      'mcpTools() needs the optional peer dependency "@modelcontextprotocol/sdk", which is not ' +
        'installed. Install it with: npm install @modelcontextprotocol/sdk',
    );
    await expect(attempt).rejects.toHaveProperty('cause', missing);
  });

  it('rethrows any other failure as it is', async () => {
    const other = Object.assign(new Error("Cannot find package 'zod'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(loadMcpSdk(() => Promise.reject(other))).rejects.toBe(other);
  });

  it('is the only way src/ reaches the SDK at run time, so the peer stays optional', () => {
    const root = join(import.meta.dirname, '..', '..');
    const valueImports = sources(root).flatMap((file) =>
      [
        ...readFileSync(file, 'utf8').matchAll(
          /^(?:import|export)\s[^;]*?'@modelcontextprotocol\/sdk[^']*';/gms,
        ),
      ]
        .map(([statement]) => statement)
        .filter((statement) => !/^(import|export) type\s/.test(statement))
        .map((statement) => `${file.slice(root.length + 1)}: ${statement}`),
    );
    expect(valueImports).toEqual([]);
    const dynamic = sources(root).filter((file) =>
      readFileSync(file, 'utf8').includes("import('@modelcontextprotocol/sdk"),
    );
    expect(dynamic.map((f) => f.slice(root.length + 1))).toEqual(['agents/mcp/load-mcp-sdk.ts']);
  });
});
