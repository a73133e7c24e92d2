import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
/** The README's own tsconfig.json (its first json block). */
const tsconfig = JSON.parse(/```json\n([\s\S]*?)```/.exec(readme)?.[1] ?? '{}') as {
  compilerOptions: Record<string, unknown>;
};

/** Runs one README block as a program, with `from 'baton-agents'` pointing at this checkout's source. */
function runBlock(index: number): string {
  const dir = join(root, 'node_modules', '.cache', 'baton-readme');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `block-${index}.mts`);
  const entry = join(root, 'src', 'index.ts');
  writeFileSync(file, (blocks[index] ?? '').replaceAll("from 'baton-agents'", `from '${entry}'`));
  const run = spawnSync(process.execPath, ['--import', 'tsx', file], {
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout;
}

describe('README tour', () => {
  it('has the eight blocks this suite runs', () => {
    expect(blocks).toHaveLength(8);
  });

  it('the graph block loops until APPROVE, fans out and in, and completes', () => {
    expect(runBlock(7)).toBe(
      'user → writer → critic → writer → critic → fr → de → checks\nDigraph execution is complete\n',
    );
  });

  it("type-checks every block with the README's tsconfig.json", () => {
    const dir = join(root, 'node_modules', '.cache', 'baton-readme-types');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    blocks.forEach((block, i) => writeFileSync(join(dir, `block-${i}.mts`), block));
    // As an installed package would: 'baton-agents' resolves to the library (here, its source).
    const config = {
      compilerOptions: {
        ...tsconfig.compilerOptions,
        noEmit: true,
        paths: { 'baton-agents': [join(root, 'src', 'index.ts')] },
      },
      include: ['*.mts'],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
    const tsc = spawnSync(
      process.execPath,
      [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(tsconfig.compilerOptions).toMatchObject({ target: 'ES2023', strict: true });
    expect(tsc.stdout).toBe('');
    expect(tsc.status).toBe(0);
  }, 120_000);

  it('termination conditions print what the comments say', () => {
    const out = runBlock(0);
    expect(out).toContain("null\nText 'APPROVE' mentioned\n");
    expect(out).toContain(
      '{"type":"OrTerminationCondition","conditions":[{"type":"MaxMessageTermination","maxMessages":3,"includeAgentEvent":false},{"type":"TextMentionTermination","text":"APPROVE","sources":["critic"]}]}\ntrue\n',
    );
  });

  it('the handoff workflow pauses at billing with the messages the comment lists', () => {
    const out = runBlock(1);
    expect(out).toContain('awaiting_input billing\n');
    expect(out).toContain(
      'TextMessage(user) → ToolCallRequestEvent(triage) → ToolCallExecutionEvent(triage) → HandoffMessage(triage) → ToolCallRequestEvent(billing) → ToolCallExecutionEvent(billing) → TextMessage(billing) → UserInputRequestedEvent(billing)\n',
    );
  });

  it('lazy routing keeps billing, then classifies the switch to tech', () => {
    expect(runBlock(2)).toBe('billing\ntech\n');
  });

  it('checkpoints resume a session in another workflow object, list its steps and fork it', () => {
    expect(runBlock(3)).toBe(
      'Which order?\n1:user_input 2:agent_response:helper 3:user_input 4:agent_response:helper\nOrder 8 ships tomorrow.\n',
    );
  });

  it('the round-robin team stops on APPROVE', () => {
    const out = runBlock(4);
    expect(out).toContain("Finish reason: Text 'APPROVE' mentioned\n");
    expect(out.trimEnd().endsWith("Text 'APPROVE' mentioned")).toBe(true);
  });

  it('the MCP block reads package.json through the filesystem server', () => {
    const [names, results, ...rest] = runBlock(5).split('\n');
    expect(names).toBe("secure-filesystem-server [ 'files_read_text_file' ]");
    expect(JSON.parse(results ?? '')).toEqual([
      {
        callId: expect.any(String),
        name: 'files_read_text_file',
        content: '{\n  "name": "baton-agents",',
        isError: false,
      },
    ]);
    expect(rest).toEqual(['']);
  });

  it('approvals pause before the refund, resume in another workflow object, and guardrails stop', () => {
    expect(runBlock(6)).toBe(
      'awaiting_input approval call_1\n' +
        "Done: $80 refunded. [ 'INV-7:call_1' ]\n" +
        'Guardrail "no_card_numbers" tripped: a card number\n',
    );
  });
});
