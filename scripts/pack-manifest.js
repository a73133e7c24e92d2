#!/usr/bin/env node
// The published package.json carries no development scripts or settings. npm has no option to pack
// a manifest other than the one on disk, so `prepack` strips it (keeping a copy) and `postpack`
// puts the copy back. If a pack dies between the two, `node scripts/pack-manifest.js restore`
// (or the next `npm pack`, which refuses to strip twice) says what to do.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What only a clone of the repository needs: its commands and its development setup. */
const DEVELOPMENT_FIELDS = ['scripts', 'devDependencies', 'overrides', 'allowScripts'];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(root, 'package.json');
const backup = join(root, '.pack', 'package.json');

function strip() {
  if (existsSync(backup)) {
    throw new Error(
      `pack-manifest: ${backup} exists, so an earlier pack did not restore package.json. ` +
        'Run `node scripts/pack-manifest.js restore`, check package.json, and pack again.',
    );
  }
  mkdirSync(dirname(backup), { recursive: true });
  copyFileSync(manifest, backup);
  const published = JSON.parse(readFileSync(manifest, 'utf8'));
  for (const field of DEVELOPMENT_FIELDS) delete published[field];
  writeFileSync(manifest, `${JSON.stringify(published, null, 2)}\n`);
}

function restore() {
  if (!existsSync(backup)) return;
  copyFileSync(backup, manifest);
  rmSync(backup);
}

const command = process.argv[2];
if (command === 'strip') strip();
else if (command === 'restore') restore();
else {
  process.stderr.write('Usage: node scripts/pack-manifest.js strip|restore\n');
  process.exitCode = 2;
}
