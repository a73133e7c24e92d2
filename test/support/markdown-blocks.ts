// The TypeScript blocks of the README and of docs/, run and type-checked as a reader would use them:
// `from 'baton-agents'` points at this checkout's source, everything else resolves from the
// project's node_modules.
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '../..');
const entry = join(root, 'src', 'index.ts');

/** A ```ts block and, when one follows it, the ```text block that shows what it prints. */
export interface CodeBlock {
  code: string;
  output: string | undefined;
}

/**
 * The ```ts blocks of a Markdown text. A block's output is a ```text block right after it, with at
 * most one line of prose ("It prints:") between the two.
 */
export function codeBlocks(markdown: string): CodeBlock[] {
  const pattern = /```ts\n([\s\S]*?)```\n(?:\n(?:[^\n`][^\n]*\n\n)?```text\n([\s\S]*?)```\n)?/g;
  return [...markdown.matchAll(pattern)].map((m) => ({ code: m[1] ?? '', output: m[2] }));
}

/** The relative links of a Markdown text (not web addresses, not in-page anchors). */
export function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^[a-z]+:/.test(target));
}

/** The tsconfig.json a Markdown text shows (its json block with `compilerOptions`). */
export function shownTsconfig(markdown: string): { compilerOptions: Record<string, unknown> } {
  const json = [...markdown.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? '')
    .find((text) => text.includes('"compilerOptions"'));
  if (json === undefined) throw new Error('No json block with "compilerOptions" was found.');
  return JSON.parse(json) as { compilerOptions: Record<string, unknown> };
}

/** Writes one block as a program whose `from 'baton-agents'` points at this checkout's source. */
function blockFile(name: string, code: string): string {
  const dir = join(root, 'node_modules', '.cache', 'baton-blocks');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.mts`);
  writeFileSync(file, code.replaceAll("from 'baton-agents'", `from '${entry}'`));
  return file;
}

/** The environment a block runs in: no model keys, so every block runs offline. */
const blockEnv = () => ({ PATH: process.env.PATH ?? '' });

/** Runs one block as a program under tsx; returns what it wrote and how it exited. */
export function runBlock(name: string, code: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', blockFile(name, code)], {
    env: blockEnv(),
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** `runBlock()` without blocking, so that several blocks can run at once. */
export function runBlockAsync(
  name: string,
  code: string,
): Promise<{ stdout: string; stderr: string; status: number | null }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', blockFile(name, code)],
      { env: blockEnv(), encoding: 'utf8', timeout: 120_000 },
      (error, stdout, stderr) => {
        const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        done({ stdout, stderr, status });
      },
    );
  });
}

/**
 * Type-checks blocks with the compiler options a page shows, as an installed package would be
 * checked: 'baton-agents' resolves to the library (here, its source).
 */
export function typeCheckBlocks(
  name: string,
  blocks: readonly { file: string; code: string }[],
  compilerOptions: Record<string, unknown>,
) {
  const dir = join(root, 'node_modules', '.cache', `baton-types-${name}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const block of blocks) writeFileSync(join(dir, `${block.file}.mts`), block.code);
  const config = {
    compilerOptions: { ...compilerOptions, noEmit: true, paths: { 'baton-agents': [entry] } },
    include: ['*.mts'],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
  return spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir],
    { encoding: 'utf8', timeout: 300_000 },
  );
}
