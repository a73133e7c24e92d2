import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

// Ajv (with ajv-formats and re2js), Hono and the `openai` SDK are loaded when first used, not when
// the library is imported: an application whose tools are all zod, that never serves, or whose
// models are on an AI SDK provider, does not pay what they cost a process to load
// (bench/import-cost.ts, docs/dependencies.md). `openai` is an optional peer: it need not be
// installed at all (test/integration/package-install.test.ts).
const root = resolve(import.meta.dirname, '../..');

/** The npm packages a fresh process holds after importing the library and doing `what`. */
function loadedAfter(what: string): string[] {
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(root, 'test/support/loaded-packages.ts'), what],
    { cwd: root, encoding: 'utf8' },
  );
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as string[];
}

const LAZY = ['ajv', 'ajv-formats', 'hono', 'openai', 're2js'];

describe('the packages a process loads', () => {
  it('are none of Ajv, ajv-formats, re2js, Hono and openai after importing the library', () => {
    const loaded = loadedAfter('import');
    expect(loaded).toContain('zod');
    expect(loaded.filter((name) => LAZY.includes(name))).toEqual([]);
  });

  it('include Ajv, ajv-formats and re2js once a tool is defined by a JSON Schema with a pattern', () => {
    expect(loadedAfter('json-schema-tool').filter((name) => LAZY.includes(name))).toEqual([
      'ajv',
      'ajv-formats',
      're2js',
    ]);
  });

  it('include Hono once serve() answers a request', () => {
    expect(loadedAfter('serve').filter((name) => LAZY.includes(name))).toEqual(['hono']);
  });

  it('leave out openai when an OpenAIChatClient is made, and include it with its first request', () => {
    expect(loadedAfter('openai-client').filter((name) => LAZY.includes(name))).toEqual([]);
    expect(loadedAfter('openai-request').filter((name) => LAZY.includes(name))).toEqual(['openai']);
  });
});
