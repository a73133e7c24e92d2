import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

// `npm ci` on a clean clone prints no install-script warning (npm 11): every package of the lock
// file with an install script has a decision in package.json's `allowScripts`. A new dependency
// that brings one fails here until someone decides (docs/dependencies.md says why each is denied).
const root = resolve(import.meta.dirname, '../..');
const read = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8')) as unknown;

describe('install scripts', () => {
  it('are each allowed or denied in allowScripts', () => {
    const lock = read('package-lock.json') as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const { allowScripts } = read('package.json') as { allowScripts: Record<string, boolean> };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.filter((name) => !(name in allowScripts))).toEqual([]);
    // Both only fetch or check a prebuilt binary that arrives as an optional dependency anyway.
    expect(allowScripts).toEqual({ esbuild: false, 'msgpackr-extract': false });
  });
});
