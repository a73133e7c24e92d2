#!/usr/bin/env node
// The `baton` command. In a clone of the repository (src/ is next to bin/) it always runs the
// TypeScript source through tsx, so a changed source file takes effect on the next call and a
// stale dist/ can never answer instead. The published package ships no src/ and runs dist/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'cli', 'main.ts');
const built = join(root, 'dist', 'cli', 'main.js');
if (existsSync(source) && existsSync(join(root, 'node_modules', 'tsx'))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(source).href);
} else if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  process.stderr.write(
    'baton: neither the built CLI (dist/cli/main.js) nor tsx to run the source is installed. ' +
      'Run `npm install` in the repository, or `npm run build`.\n',
  );
  process.exitCode = 2;
}
