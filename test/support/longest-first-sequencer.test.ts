import { describe, expect, it } from 'vitest';

import { longestFirst } from './longest-first-sequencer.js';

describe('longestFirst', () => {
  it('starts the files of known seconds longest first and keeps the order of the others', () => {
    const seconds: Record<string, number> = { slow: 200, medium: 60, quick: 3 };
    const order = longestFirst(['a', 'quick', 'b', 'slow', 'c', 'medium'], (f) => seconds[f]);
    expect(order).toEqual(['slow', 'medium', 'quick', 'a', 'b', 'c']);
  });

  it('names only files that exist in the table it reads', async () => {
    const { readFile, access } = await import('node:fs/promises');
    const table = JSON.parse(
      await readFile(new URL('file-seconds.json', import.meta.url), 'utf8'),
    ) as Record<string, number>;
    const missing: string[] = [];
    for (const path of Object.keys(table)) {
      await access(new URL(`../../${path}`, import.meta.url)).catch(() => missing.push(path));
    }
    expect(missing).toEqual([]);
    expect(Object.keys(table).length).toBeGreaterThan(10);
  });
});
