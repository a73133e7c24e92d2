// The package as a user gets it: `npm pack` (in a copy of the repository, so the pack's
// prepack/postpack steps never touch this checkout), then an empty project set up exactly as the
// README's Install section says, the tarball installed into it with the registry's current
// TypeScript, and the README's tour type-checked by that TypeScript and run by plain `node`.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { codeBlocks, root, shownTsconfig } from '../support/markdown-blocks.js';

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'baton-pack-'));
const unpacked = join(work, 'unpacked', 'package');
const app = join(work, 'app');

/** Runs a command; fails the test with its output when it exits non-zero. */
function sh(command: string, args: readonly string[], cwd: string): string {
  const run = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 600_000 });
  if (run.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${run.status}:\n${run.stdout}${run.stderr}`,
    );
  }
  return run.stdout;
}

/** The README's json block that holds `"type": "module"`: the minimal package.json it shows. */
function shownPackageJson(): string {
  const json = [...readme.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? '')
    .find((text) => text.includes('"type": "module"'));
  if (json === undefined)
    throw new Error('The README shows no package.json with "type": "module".');
  return json;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => join(dir, file));
}

let tarball = '';

beforeAll(() => {
  const repo = join(work, 'repo');
  mkdirSync(repo);
  const packed = ['package.json', 'README.md', 'LICENSE', 'bin', 'src', 'scripts'];
  for (const entry of [...packed, 'tsconfig.json', 'tsconfig.build.json']) {
    cpSync(join(root, entry), join(repo, entry), { recursive: true });
  }
  symlinkSync(join(root, 'node_modules'), join(repo, 'node_modules'), 'dir');
  sh('npm', ['pack', '--pack-destination', work], repo);
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    version: string;
  };
  tarball = join(work, `baton-agents-${version}.tgz`);
  mkdirSync(join(work, 'unpacked'));
  sh('tar', ['-xzf', tarball, '-C', join(work, 'unpacked')], work);
  // The copy's package.json is back as it was after the pack.
  expect(readFileSync(join(repo, 'package.json'), 'utf8')).toBe(
    readFileSync(join(root, 'package.json'), 'utf8'),
  );
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000);

describe('the packed package', () => {
  it('has a package.json without development scripts or settings', () => {
    const manifest = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.name).toBe('baton-agents');
    expect(manifest.license).toBe('MIT');
    expect(Object.keys(manifest)).not.toContain('scripts');
    expect(Object.keys(manifest)).not.toContain('devDependencies');
    expect(manifest.bin).toEqual({ baton: './bin/baton.js' });
  });

  it('ships the LICENSE, the README, bin/ and dist/, and no source', () => {
    expect(readdirSync(unpacked).sort()).toEqual([
      'LICENSE',
      'README.md',
      'bin',
      'dist',
      'package.json',
    ]);
    expect(readFileSync(join(unpacked, 'LICENSE'), 'utf8')).toContain(
      'Copyright (c) 2026 Baton contributors',
    );
    const source = (file: string) =>
      (file.endsWith('.ts') && !file.endsWith('.d.ts')) || file.includes('.test.');
    expect(filesUnder(unpacked).filter(source)).toEqual([]);
  });

  it('has source maps that carry their sources', () => {
    const maps = filesUnder(join(unpacked, 'dist')).filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(50);
    const withoutSources = maps.filter((file) => {
      const map = JSON.parse(readFileSync(file, 'utf8')) as {
        sources: string[];
        sourcesContent?: (string | null)[];
      };
      return (
        map.sourcesContent?.length !== map.sources.length ||
        map.sourcesContent.some((content) => typeof content !== 'string' || content === '')
      );
    });
    expect(withoutSources).toEqual([]);
  });
});

describe("a project set up as the README's Install section says", () => {
  const tour = codeBlocks(readme);

  beforeAll(() => {
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), shownPackageJson());
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(shownTsconfig(readme), null, 2));
    tour.forEach((block, i) => writeFileSync(join(app, `tour-${i + 1}.ts`), block.code));
    const install = ['install', '--no-audit', '--no-fund', '--prefer-offline'];
    sh('npm', [...install, tarball, 'zod'], app);
    sh('npm', [...install, '--save-dev', 'typescript', '@types/node'], app);
  }, 600_000);

  it('type-checks the tour with the TypeScript the registry has today (7 or later)', () => {
    const typescript = JSON.parse(
      readFileSync(join(app, 'node_modules', 'typescript', 'package.json'), 'utf8'),
    ) as { version: string };
    expect(Number(typescript.version.split('.')[0])).toBeGreaterThanOrEqual(7);
    const tsc = spawnSync(join(app, 'node_modules', '.bin', 'tsc'), ['-p', app], {
      cwd: app,
      encoding: 'utf8',
      timeout: 300_000,
    });
    expect(tsc.stdout).toBe('');
    expect(tsc.status).toBe(0);
  }, 300_000);

  it('runs each tour block with node and prints what the README shows', () => {
    expect(tour.length).toBeGreaterThan(0);
    // Node 22.18+ runs TypeScript by stripping the types; older Node gets tsx, as the README says.
    const strips = Boolean((process.features as { typescript?: unknown }).typescript);
    const loader = strips
      ? []
      : ['--import', pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href];
    tour.forEach((block, i) => {
      const run = spawnSync(process.execPath, [...loader, `tour-${i + 1}.ts`], {
        cwd: app,
        env: { PATH: process.env.PATH ?? '' },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe(block.output);
      expect(run.status).toBe(0);
    });
  }, 300_000);

  it('installs the baton command', () => {
    const help = spawnSync(join(app, 'node_modules', '.bin', 'baton'), ['--help'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(help.stdout).toContain('Usage:\n  baton run <module>');
    expect(help.status).toBe(0);
  }, 120_000);
});
