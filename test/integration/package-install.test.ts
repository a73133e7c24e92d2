// The package as a user gets it: `npm pack` (in a copy of the repository, so the pack's
// prepack/postpack steps never touch this checkout), then an empty project set up by running the
// README's Install commands, the tarball in place of the registry's copy, with the registry's
// current TypeScript: the tour type-checked by it and run by plain `node`, a desk of two files,
// `baton serve` on the tour, and every link and address the README and the help print resolved
// (a file of the installed package, or a path of the repository that this checkout has).
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
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

import { codeBlocks, relativeLinks, root, shownTsconfig } from '../support/markdown-blocks.js';
import { addressesIn, repository, unresolvedAddresses } from '../support/repository-links.js';

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'baton-pack-'));
const unpacked = join(work, 'unpacked', 'package');
const app = join(work, 'app');
const installed = join(app, 'node_modules', 'baton-agents');

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

/** The commands of the README's Install section's first sh block, one per line, comments cut. */
function installCommands(): string[] {
  const section = readme.slice(readme.indexOf('## Install'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('The README shows no install commands.');
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => join(dir, file));
}

/** Runs a file of the app with node (through tsx's loader where Node cannot strip types). */
function runInApp(file: string, env: Record<string, string> = {}) {
  const strips = Boolean((process.features as { typescript?: unknown }).typescript);
  const loader = strips
    ? []
    : ['--import', pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href];
  return spawnSync(process.execPath, [...loader, file], {
    cwd: app,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

/** Runs the installed `baton` command in the app. */
function baton(args: readonly string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}) {
  return spawnSync(join(app, 'node_modules', '.bin', 'baton'), args, {
    cwd: app,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 120_000,
  });
}

let tarball = '';

beforeAll(() => {
  const repo = join(work, 'repo');
  mkdirSync(repo);
  const packed = ['package.json', 'README.md', 'LICENSE', 'bin', 'docs', 'src', 'scripts'];
  for (const entry of [...packed, 'tsconfig.json', 'tsconfig.build.json']) {
    cpSync(join(root, entry), join(repo, entry), { recursive: true });
  }
  // What `npm run docs` leaves in a checkout must not ship: only the pages do.
  mkdirSync(join(repo, 'docs', 'api'), { recursive: true });
  writeFileSync(join(repo, 'docs', 'api', 'index.html'), '<html></html>\n');
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
  const manifest = () =>
    JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as Record<string, unknown>;

  it('has a package.json without development scripts or settings', () => {
    expect(manifest().name).toBe('baton-agents');
    expect(manifest().license).toBe('MIT');
    expect(Object.keys(manifest())).not.toContain('scripts');
    expect(Object.keys(manifest())).not.toContain('devDependencies');
    expect(Object.keys(manifest())).not.toContain('allowScripts');
    expect(manifest().bin).toEqual({ baton: './bin/baton.js' });
  });

  it('names its repository, home page and issue tracker', () => {
    expect(manifest().repository).toEqual({ type: 'git', url: `git+${repository}.git` });
    expect(manifest().homepage).toBe(`${repository}#readme`);
    expect(manifest().bugs).toEqual({ url: `${repository}/issues` });
  });

  it('depends on neither openai nor the AI SDK: both are optional peers', () => {
    const peers = manifest().peerDependenciesMeta as Record<string, { optional?: boolean }>;
    expect(Object.keys(manifest().dependencies as object).sort()).toEqual([
      '@hono/node-server',
      'ajv',
      'ajv-formats',
      'hono',
      'immer',
      're2js',
      'xstate',
    ]);
    expect(peers.openai).toEqual({ optional: true });
    expect(peers.ai).toEqual({ optional: true });
  });

  it('ships the LICENSE, the README, bin/, dist/ and the docs pages, and no source', () => {
    expect(readdirSync(unpacked).sort()).toEqual([
      'LICENSE',
      'README.md',
      'bin',
      'dist',
      'docs',
      'package.json',
    ]);
    const pages = readdirSync(join(root, 'docs')).filter((file) => file.endsWith('.md'));
    expect(readdirSync(join(unpacked, 'docs')).sort()).toEqual(pages.sort());
    expect(readFileSync(join(unpacked, 'LICENSE'), 'utf8')).toContain(
      'Copyright (c) 2026 Baton contributors',
    );
    const source = (file: string) =>
      (file.endsWith('.ts') && !file.endsWith('.d.ts')) || file.includes('.test.');
    expect(filesUnder(unpacked).filter(source)).toEqual([]);
  });

  it('has bundled JavaScript, each file with a source map that carries its sources', () => {
    const files = filesUnder(join(unpacked, 'dist'));
    const scripts = files.filter((file) => file.endsWith('.js'));
    // The library and the CLI, and the chunks they share or load lazily: not a file per module.
    expect(scripts.length).toBeGreaterThan(10);
    expect(scripts.length).toBeLessThan(100);
    expect(files.filter((file) => file.endsWith('.d.ts')).length).toBeGreaterThan(200);
    const maps = files.filter((file) => file.endsWith('.map'));
    expect(maps.sort()).toEqual(scripts.map((file) => `${file}.map`).sort());
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

describe("a project set up by the README's Install commands", () => {
  const tour = codeBlocks(readme);

  beforeAll(() => {
    mkdirSync(app);
    for (const command of installCommands()) {
      const run = command
        .replace(/\bnpm install\b/g, 'npm install --no-audit --no-fund --prefer-offline')
        .replace(/ baton-agents\b/, ` ${tarball}`);
      sh('sh', ['-c', run], app);
    }
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(shownTsconfig(readme), null, 2));
    writeFileSync(join(app, 'desk.ts'), tour[0]?.code ?? '');
    // A desk of two files, the second imported by its real name as the README says.
    writeFileSync(
      join(app, 'desk-tools.ts'),
      "import { z } from 'zod';\nimport { tool } from 'baton-agents';\n\n" +
        'export const greet = tool({\n  name: "greet",\n  description: "Greets.",\n' +
        '  parameters: z.object({ who: z.string() }),\n' +
        '  execute: ({ who }) => `Hello, ${who}.`,\n});\n',
    );
    writeFileSync(
      join(app, 'desk-main.ts'),
      "import { greet } from './desk-tools.ts';\n\nconsole.log(greet.schema.name, greet.effect);\n",
    );
    writeFileSync(
      join(app, 'openai-missing.ts'),
      "import { OpenAIChatClient } from 'baton-agents';\n\n" +
        "const client = new OpenAIChatClient({ model: 'gpt-4.1-mini', apiKey: 'sk-test' });\n" +
        "await client.create({ messages: [{ role: 'user', content: 'hi' }] }).catch(\n" +
        '  (error: Error) => console.log(`${error.name}: ${error.message}`),\n);\n',
    );
  }, 600_000);

  it('holds the package, zod and the tools the README installs, and no openai', () => {
    expect(existsSync(join(installed, 'package.json'))).toBe(true);
    for (const name of ['zod', 'typescript', '@types/node', 'tsx']) {
      expect(existsSync(join(app, 'node_modules', name, 'package.json'))).toBe(true);
    }
    expect(existsSync(join(app, 'node_modules', 'openai'))).toBe(false);
    expect(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'))).toMatchObject({
      type: 'module',
    });
  });

  it('type-checks the tour and a desk of two files with the TypeScript the registry has today (7 or later)', () => {
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

  it('runs the tour with node and prints what the README shows', () => {
    expect(tour).toHaveLength(1);
    const run = runInApp('desk.ts');
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(tour[0]?.output);
    expect(run.status).toBe(0);
  }, 120_000);

  it('runs a desk of two files as written', () => {
    const run = runInApp('desk-main.ts');
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('greet once\n');
  }, 120_000);

  it('says what to install when OpenAIChatClient is used without openai', () => {
    const run = runInApp('openai-missing.ts');
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      'ConfigError: OpenAIChatClient needs the optional peer dependency "openai", which is not ' +
        'installed. Install it with: npm install openai\n',
    );
    const demo = baton(['demo'], { input: 'bye\n', env: { OPENAI_API_KEY: 'sk-test' } });
    expect(demo.stdout).toContain(
      'OPENAI_API_KEY is set: run `npm install openai` to use that model. Until then the agents ' +
        'run on the built-in OFFLINE model',
    );
    expect(demo.status).toBe(0);
  }, 120_000);

  it('serves the tour with baton serve', async () => {
    const child = spawn(
      join(app, 'node_modules', '.bin', 'baton'),
      ['serve', 'desk.ts', '--port', '0'],
      { cwd: app, env: { PATH: process.env.PATH ?? '', BATON_TOKEN: 'a-token-of-the-test' } },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((found, failed) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = /^Baton serve: (http:\/\/\S+)$/m.exec(stdout);
        if (line?.[1] !== undefined) found(line[1]);
      });
      child.on('exit', (code) => failed(new Error(`baton serve exited ${code}: ${stderr}`)));
    });
    const exited = new Promise<number | null>((done) => child.on('exit', done));
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const sessions = await fetch(`${url}/sessions`, {
      headers: { authorization: 'Bearer a-token-of-the-test' },
    });
    expect(sessions.status).toBe(200);
    expect((await fetch(`${url}/sessions`)).status).toBe(401);
    // The tour's own lines first (loading the module runs it), then serve's.
    expect(stdout).toBe(`${tour[0]?.output}Baton serve: ${url}\nToken: the value of BATON_TOKEN\n`);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toBe('');
  }, 120_000);

  it('writes a desk with baton init that type-checks and runs as it is', () => {
    const dir = join(app, 'initialised');
    mkdirSync(dir);
    const init = spawnSync(join(app, 'node_modules', '.bin', 'baton'), ['init'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    });
    expect(init.stderr).toBe('');
    expect(init.stdout.split('\n').slice(0, 3)).toEqual([
      'wrote    desk.ts',
      'wrote    tsconfig.json',
      'wrote    package.json ("type": "module", "start": "baton run desk.ts", "dev": "baton dev ' +
        'desk.ts", "serve": "baton serve desk.ts --ui", "typecheck": "tsc")',
    ]);
    const tsc = spawnSync(join(app, 'node_modules', '.bin', 'tsc'), ['-p', dir], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 300_000,
    });
    expect(tsc.stdout).toBe('');
    expect(tsc.status).toBe(0);
    const run = spawnSync(join(app, 'node_modules', '.bin', 'baton'), ['run', 'desk.ts'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      input: 'Where is INV-1002?\nbye\n',
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('INV-1002: $49.00, paid on 2026-11-02. Anything else?');
    expect(run.status).toBe(0);
  }, 300_000);

  it('resolves every link of the README and the docs pages, and every address the help prints', () => {
    const missing = relativeLinks(readme).filter((link) => !existsSync(join(installed, link)));
    expect(missing).toEqual([]);
    for (const page of readdirSync(join(installed, 'docs'))) {
      const text = readFileSync(join(installed, 'docs', page), 'utf8');
      const broken = relativeLinks(text).filter(
        (link) => !existsSync(join(installed, 'docs', link)),
      );
      expect({ page, broken }).toEqual({ page, broken: [] });
    }
    const printed = [...addressesIn(readme)];
    const commands = [[], ['init'], ['serve'], ['worker'], ['dev'], ['run'], ['eval', 'routing']];
    for (const command of commands) {
      const help = baton([...command, '--help']);
      expect(help.status).toBe(0);
      printed.push(...addressesIn(help.stdout));
    }
    expect(printed).toContain(`${repository}/blob/main/docs/serving.md`);
    // Loopback addresses are what the commands print when they run; the README's are examples.
    const examples = (address: string) => /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(address);
    expect(unresolvedAddresses(printed, examples)).toEqual([]);
  }, 120_000);
});
