import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  codeBlocks,
  relativeLinks,
  root,
  runBlockAsync,
  shownTsconfig,
  typeCheckBlocks,
} from '../support/markdown-blocks.js';

const pages = readdirSync(join(root, 'docs'))
  .filter((file) => file.endsWith('.md'))
  .sort();
const blocks = pages.flatMap((page) =>
  codeBlocks(readFileSync(join(root, 'docs', page), 'utf8')).map((block, i) => ({
    ...block,
    file: `${page.replace(/\.md$/, '')}-${i + 1}`,
  })),
);

describe('the TypeScript blocks of docs/', () => {
  it('are there, each followed by the output it prints', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(20);
    expect(blocks.filter((b) => b.output === undefined).map((b) => b.file)).toEqual([]);
  });

  // Each block is its own process; a few run at once (vitest's maxConcurrency).
  it.concurrent.for(blocks)(
    '$file runs and prints what the page shows',
    { timeout: 120_000 },
    async ({ file, code, output }, { expect }) => {
      const run = await runBlockAsync(`docs-${file}`, code);
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe(output);
      expect(run.status).toBe(0);
    },
  );

  it("type-check with the README's tsconfig.json", () => {
    const { compilerOptions } = shownTsconfig(readFileSync(join(root, 'README.md'), 'utf8'));
    const tsc = typeCheckBlocks('docs', blocks, compilerOptions);
    expect(tsc.stdout).toBe('');
    expect(tsc.status).toBe(0);
  }, 300_000);
});

describe('the pages of docs/', () => {
  it.each(pages)('%s links only to files that exist', (page) => {
    const links = relativeLinks(readFileSync(join(root, 'docs', page), 'utf8'));
    expect(links.filter((target) => !existsSync(join(root, 'docs', target)))).toEqual([]);
  });
});
