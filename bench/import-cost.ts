// What importing the built library costs a fresh process: the milliseconds from `import()` to its
// end, and the npm packages it loaded, for each `dist/` given (this checkout's by default), in
// alternating rounds (a busy machine slows every build alike), with medians side by side.
// Usage: npx tsx bench/import-cost.ts [--rounds 21] [<label>=<dist dir> ...]
//   npm run build && npx tsx bench/import-cost.ts before=/tmp/before/dist after=dist
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { median } from './relay.js';

const args = process.argv.slice(2);
let rounds = 21;
const builds: { label: string; dist: string }[] = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i] ?? '';
  if (arg === '--rounds') rounds = Number(args[++i]);
  else {
    const [label, dist] = arg.includes('=') ? arg.split('=') : [arg, arg];
    if (!label || !dist) throw new Error(`${arg}: give <label>=<dist dir>.`);
    builds.push({ label, dist: resolve(dist) });
  }
}
if (builds.length === 0) builds.push({ label: 'dist', dist: resolve('dist') });

// The child: times the import and lists the packages it loaded (scripts/package-watch.mjs).
const watch = pathToFileURL(resolve(import.meta.dirname, '../scripts/package-watch.mjs')).href;
const child = (dist: string) => `
const { watchPackages } = await import(${JSON.stringify(watch)});
const loaded = watchPackages();
const began = performance.now();
await import(${JSON.stringify(pathToFileURL(resolve(dist, 'index.js')).href)});
const ms = performance.now() - began;
console.log(JSON.stringify({ ms, packages: loaded() }));
`;

const samples = new Map(builds.map((b) => [b.label, [] as number[]]));
const packages = new Map<string, string[]>();
for (let round = 0; round < rounds; round++) {
  for (const build of builds) {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', child(build.dist)], {
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`${build.label}: ${run.stderr}`);
    const figures = JSON.parse(run.stdout) as { ms: number; packages: string[] };
    samples.get(build.label)?.push(figures.ms);
    packages.set(build.label, figures.packages);
  }
}

console.log(`Node ${process.version}, ${rounds} alternating rounds, a fresh process each.\n`);
console.log('| build | import p50 | min | max | npm packages loaded |');
console.log('|---|---|---|---|---|');
for (const { label } of builds) {
  const ms = samples.get(label) ?? [];
  const fmt = (n: number) => `${n.toFixed(0)} ms`;
  console.log(
    `| ${label} | ${fmt(median(ms))} | ${fmt(Math.min(...ms))} | ${fmt(Math.max(...ms))} | ` +
      `${(packages.get(label) ?? []).join(', ')} |`,
  );
}
