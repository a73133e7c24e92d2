#!/usr/bin/env node
// `npm run build`: dist/ as published, made anew. tsc writes the type declarations; esbuild the
// JavaScript, the library (src/index.ts) and the CLI (src/cli/main.ts) bundled into ES modules
// that share chunks, so the CLI and a workflow module importing 'baton-agents' use one copy of
// every class. Node then loads a few files instead of ~250, which halves what importing the
// package costs a fresh process (bench/RESULTS.md); what is imported lazily (serve()'s routes, each
// CLI command, the devtools) keeps a chunk of its own, loaded when first used. Packages stay
// imports.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist');
// A file left by an earlier build (a module since renamed) must not ship.
rmSync(outdir, { recursive: true, force: true });

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const declarations = spawnSync(
  process.execPath,
  [tsc, '-p', 'tsconfig.build.json', '--emitDeclarationOnly'],
  { cwd: root, stdio: 'inherit' },
);
if (declarations.status !== 0) process.exit(declarations.status ?? 1);

await build({
  absWorkingDir: root,
  entryPoints: ['src/index.ts', 'src/cli/main.ts'],
  outbase: 'src',
  outdir,
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  packages: 'external',
  // Class and function names stay as written: errors and messages show them.
  keepNames: true,
  // Source maps carry their sources, since the package ships no src/.
  sourcemap: true,
  sourcesContent: true,
  legalComments: 'none',
  logLevel: 'warning',
});
