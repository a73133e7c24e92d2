// What a user's `npm install baton-agents zod` costs: the package packed from this checkout (in a
// copy, so prepack/postpack never touch it), installed into an empty project with an empty npm
// cache (`--cache <fresh dir>`: every tarball downloaded), timed; then the size of node_modules,
// its largest packages, and the time to import the package there in a fresh process (median wall
// and CPU time: on a busy machine the CPU time is the steadier of the two).
// Usage: npx tsx bench/install-footprint.ts [--rounds 11] [--tarball <file.tgz>]
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { median } from './relay.js';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? undefined : args[at + 1];
};
const rounds = Number(option('rounds') ?? 11);
const work = mkdtempSync(join(tmpdir(), 'baton-footprint-'));

function sh(command: string, argv: readonly string[], cwd: string): string {
  const run = spawnSync(command, argv, { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${command} ${argv.join(' ')}: ${run.stdout}${run.stderr}`);
  return run.stdout;
}

/** Bytes of the files under `path` (what `du --apparent-size` counts). */
function bytesOf(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + bytesOf(join(path, entry)), 0);
}

/** The packages directly under node_modules (scopes opened), with their sizes, largest first. */
function packagesOf(modules: string): { name: string; bytes: number }[] {
  const names = readdirSync(modules)
    .filter((entry) => !entry.startsWith('.'))
    .flatMap((entry) =>
      entry.startsWith('@')
        ? readdirSync(join(modules, entry)).map((inner) => `${entry}/${inner}`)
        : [entry],
    );
  return names
    .map((name) => ({ name, bytes: bytesOf(join(modules, name)) }))
    .sort((a, b) => b.bytes - a.bytes);
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

try {
  let tarball = option('tarball');
  if (tarball === undefined) {
    const repo = join(work, 'repo');
    mkdirSync(repo);
    for (const entry of ['package.json', 'README.md', 'LICENSE', 'bin', 'docs', 'src', 'scripts']) {
      cpSync(join(root, entry), join(repo, entry), { recursive: true });
    }
    for (const entry of ['tsconfig.json', 'tsconfig.build.json']) {
      cpSync(join(root, entry), join(repo, entry));
    }
    symlinkSync(join(root, 'node_modules'), join(repo, 'node_modules'), 'dir');
    const name = sh('npm', ['pack', '--silent', '--pack-destination', work], repo).trim();
    tarball = join(work, name.split('\n').at(-1) ?? '');
  }
  const app = join(work, 'app');
  mkdirSync(app);
  sh('npm', ['init', '-y'], app);
  const cache = join(work, 'cache');
  const began = performance.now();
  sh('npm', ['install', '--no-audit', '--no-fund', '--cache', cache, resolve(tarball), 'zod'], app);
  const seconds = (performance.now() - began) / 1000;
  const modules = join(app, 'node_modules');
  const packages = packagesOf(modules);
  const total = packages.reduce((sum, p) => sum + p.bytes, 0);
  const importMs: number[] = [];
  const importCpu: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const run = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        'const t = performance.now(); const c = process.cpuUsage(); ' +
          "await import('baton-agents'); const u = process.cpuUsage(c); " +
          'console.log(JSON.stringify([performance.now() - t, (u.user + u.system) / 1000]));',
      ],
      { cwd: app, encoding: 'utf8' },
    );
    if (run.status !== 0) throw new Error(run.stderr);
    const [ms, cpu] = JSON.parse(run.stdout) as [number, number];
    importMs.push(ms);
    importCpu.push(cpu);
  }
  console.log(`Node ${process.version}, npm ${sh('npm', ['--version'], app).trim()}`);
  console.log(`install (cold cache): ${seconds.toFixed(1)} s`);
  console.log(`node_modules: ${mb(total)} in ${packages.length} packages`);
  console.log(
    `largest: ${packages
      .slice(0, 8)
      .map((p) => `${p.name} ${mb(p.bytes)}`)
      .join(', ')}`,
  );
  console.log(
    `import in a fresh process: p50 ${median(importMs).toFixed(0)} ms, min ` +
      `${Math.min(...importMs).toFixed(0)} ms; CPU p50 ${median(importCpu).toFixed(0)} ms ` +
      `(${rounds} runs)`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
