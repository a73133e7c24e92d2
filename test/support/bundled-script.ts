/**
 * A test's child process (a worker the test SIGKILLs, a queue worker, a racing writer) started
 * from one ESM file that esbuild bundled from the script and the checkout's source, packages left
 * as imports. Under tsx each such child spent about 0.7 s of CPU more resolving and loading ~300
 * TypeScript modules; the crash matrix and the chaos run start hundreds of them.
 *
 * The bundle is built once per test process and script, named by its content, and written with a
 * rename, so test files building the same one at once both find it whole. It sits in
 * node_modules/.baton-test-bundles: its imports of packages resolve from the checkout, and it is
 * two folders below the checkout's root as the library's own files are (src/x/, dist/x/), where
 * the library looks for its package.json (`../../package.json`). A stack trace from a child names
 * the bundle's lines; the bundle's `// src/...` comments say which file each part comes from.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

import { buildSync } from 'esbuild';

const root = resolve(import.meta.dirname, '../..');
const folder = join(root, 'node_modules/.baton-test-bundles');
const built = new Map<string, string>();

/** The path of `script` (from the checkout's root) bundled into one file for `node <file>`. */
export function bundledScript(script: string): string {
  const known = built.get(script);
  if (known !== undefined) return known;
  const result = buildSync({
    entryPoints: [join(root, script)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    write: false,
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error(`esbuild wrote nothing for ${script}`);
  const hash = createHash('sha256').update(output.contents).digest('hex').slice(0, 16);
  const file = join(folder, `${basename(script, '.ts')}-${hash}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(folder, { recursive: true });
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, output.contents);
    renameSync(partial, file);
  }
  built.set(script, file);
  return file;
}
