import { readFileSync } from 'node:fs';
import { castsBySourceFile, castsIn } from './scripts/count-casts.mjs';
for (const [file] of castsBySourceFile()) {
  if (file.startsWith('src/engine') || file.startsWith('src/termination')) continue;
  const lines = readFileSync(file, 'utf8').split('\n');
  for (const n of castsIn(readFileSync(file, 'utf8'))) console.log(`${file}:${n}: ${lines[n - 1].trim().slice(0, 150)}`);
}
