import { readdirSync } from 'node:fs';

import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

import { layerOf, readLayers } from '../../scripts/layer-rules.mjs';

const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

/** The messages `npm run lint` gives for `code` as if it were the file at `filePath`. */
async function lint(filePath: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('layers.json as lint rules', () => {
  it('refuses an import that runs upward and names both layers', async () => {
    expect(
      await lint('src/messages/upward.ts', "export { Agent } from '../agents/agent.js';\n"),
    ).toEqual([
      `no-restricted-imports: '../agents/agent.js' import is restricted from being used by a pattern. ` +
        `Layer "messages" must not import layer "agents" (src/agents): layers.json lists it higher. ` +
        'Move the code down a layer or pass it in.',
    ]);
  });

  it('keeps the engine from importing an orchestration, from any depth of its rooms', async () => {
    const code =
      "import type { Swarm } from '../../orchestrations/teams/swarm.js';\nexport type S = Swarm;\n";
    expect(await lint('src/engine/run/uses-swarm.ts', code)).toEqual([
      `no-restricted-imports: '../../orchestrations/teams/swarm.js' import is restricted from being used by a pattern. ` +
        `Layer "engine" must not import layer "orchestrations" (src/orchestrations): layers.json lists it higher. ` +
        'Move the code down a layer or pass it in.',
    ]);
  });

  it('lets the engine reach a store through its interface only', async () => {
    const viaInterface =
      "import type { CheckpointStore } from '../../checkpoint/checkpoint-store.js';\nexport type S = CheckpointStore;\n";
    expect(await lint('src/engine/log/store.ts', viaInterface)).toEqual([]);
    const implementation =
      "import { MemoryCheckpointStore } from '../../checkpoint/memory-checkpoint-store.js';\nexport const s = new MemoryCheckpointStore();\n";
    expect(await lint('src/engine/log/store.ts', implementation)).toEqual([
      `no-restricted-imports: '../../checkpoint/memory-checkpoint-store.js' import is restricted from being used by a pattern. ` +
        'Layer "engine" imports src/checkpoint only through src/checkpoint/checkpoint-store.ts, ' +
        'src/checkpoint/session-list.ts, src/checkpoint/session-id.ts: the engine and orchestrations use a store ' +
        'through its interface; the caller picks the store (layers.json).',
    ]);
    // An edge such as the CLI picks the store, so it may name one.
    expect(await lint('src/cli/store.ts', implementation.replace('../../', '../'))).toEqual([]);
  });

  it('keeps a package to the one place allowed to import it', async () => {
    const code = "import OpenAI from 'openai';\nexport const o = OpenAI;\n";
    expect(await lint('src/agents/direct-openai.ts', code)).toEqual([
      `no-restricted-imports: 'openai' import is restricted from being used by a pattern. ` +
        'Only src/models/openai-chat-client.ts, src/models/load-openai.ts import "openai": everything ' +
        'else depends on the ChatClient interface; load-openai.ts loads the optional peer for it (layers.json).',
    ]);
    const otel = "import { trace } from '@opentelemetry/api';\nexport const t = trace;\n";
    expect(await lint('src/engine/run/spans.ts', otel)).toEqual([
      `no-restricted-imports: '@opentelemetry/api' import is restricted from being used by a pattern. ` +
        'Only src/observability imports "@opentelemetry/api": observability is a port: spans and metrics go through src/observability/ (layers.json).',
    ]);
  });

  it('sees an import() too, and keeps the syntax rules every file has', async () => {
    const lazy = "export const load = () => import('../../orchestrations/teams/swarm.js');\n";
    expect(await lint('src/engine/run/lazy.ts', lazy)).toEqual([
      'no-restricted-syntax: Layer "engine" must not import layer "orchestrations" (src/orchestrations): ' +
        'layers.json lists it higher. Move the code down a layer or pass it in.',
    ]);
    const lazyPackage = "export const load = () => import('pg');\n";
    expect(await lint('src/engine/log/lazy.ts', lazyPackage)).toEqual([
      'no-restricted-syntax: Only src/checkpoint, src/workers import "pg": only the stores and the queue adapters talk to a database (layers.json).',
    ]);
    expect(await lint('src/checkpoint/lazy.ts', lazyPackage)).toEqual([]);
    expect(await lint('src/messages/default.ts', 'export default 1;\n')).toEqual([
      'no-restricted-syntax: Use named exports only (STYLE.md: a default export breaks grep and renames).',
    ]);
  });

  it('lets a file import its own layer and the layers below it', async () => {
    const code =
      "import { ConfigError } from '../../errors.js';\nimport { textMessage } from '../../messages/message-factories.js';\n" +
      'export const both = [ConfigError, textMessage];\n';
    expect(await lint('src/orchestrations/teams/fine.ts', code)).toEqual([]);
  });

  it('places every source file of src/ in a layer', () => {
    const { layers } = readLayers();
    const unplaced = readdirSync('src', { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .filter((file) => layerOf(`src/${file}`, layers) === undefined);
    expect(unplaced).toEqual([]);
  });
});

describe('max-lines for src/', () => {
  it('refuses a source file of 351 lines and lets a test file run longer', async () => {
    const code = 'export const line = 0;\n'.repeat(351);
    expect(await lint('src/messages/long.ts', code)).toEqual([
      'max-lines: File has too many lines (351). Maximum allowed is 350.',
    ]);
    expect(await lint('src/messages/long.test.ts', code)).toEqual([]);
  });
});
