import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { DESK_TS, SCRIPTS, TSCONFIG } from '../../src/cli/init-desk.js';
import { root, shownTsconfig } from '../support/markdown-blocks.js';

// `baton init`: the files it writes, what it keeps, and the desk it writes type-checked and run.
// test/integration/package-install.test.ts does the same with the installed package.
const tsx = join(root, 'node_modules/tsx/dist/esm/index.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'baton-init-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function baton(args: string[], options: { cwd?: string; input?: string } = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(
      process.execPath,
      ['--import', tsx, join(root, 'src/cli/main.ts'), ...args],
      {
        cwd: options.cwd ?? root,
        env: { PATH: process.env.PATH ?? '' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(options.input ?? '');
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

describe('baton init', { timeout: 60_000 }, () => {
  it('writes desk.ts, tsconfig.json and package.json in an empty directory', async () => {
    const dir = join(scratch, 'My Desk');
    mkdirSync(dir);
    const run = await baton(['init'], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      [
        'wrote    desk.ts',
        'wrote    tsconfig.json',
        'wrote    package.json ("type": "module", "start": "baton run desk.ts", "dev": "baton dev ' +
          'desk.ts", "serve": "baton serve desk.ts --ui", "typecheck": "tsc")',
        '',
        'Install what the desk needs:',
        '  npm install baton-agents zod',
        '  npm install --save-dev typescript @types/node tsx',
        'Then: npm start (talk to it here), npm run dev (the devtools page), npm run typecheck.',
        '',
      ].join('\n'),
    );
    expect(run.status).toBe(0);
    expect(readFileSync(join(dir, 'desk.ts'), 'utf8')).toBe(DESK_TS);
    expect(JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8'))).toEqual(TSCONFIG);
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))).toEqual({
      name: 'my-desk',
      private: true,
      type: 'module',
      scripts: SCRIPTS,
    });
  });

  it('keeps files and scripts that exist, and asks only for what is not installed', async () => {
    const dir = join(scratch, 'existing');
    mkdirSync(dir);
    writeFileSync(join(dir, 'desk.ts'), 'export {};\n');
    const manifest = {
      name: 'existing',
      scripts: { start: 'node server.js' },
      dependencies: { 'baton-agents': '^0.1.0', zod: '^4.1.0' },
      devDependencies: { typescript: '^7.0.0' },
    };
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
    const run = await baton(['init', '--dir', dir]);
    expect(run.stdout).toBe(
      [
        'kept     desk.ts (it exists)',
        'wrote    tsconfig.json',
        'kept     the "start" script of package.json ("node server.js")',
        'updated  package.json ("type": "module", "dev": "baton dev desk.ts", "serve": "baton ' +
          'serve desk.ts --ui", "typecheck": "tsc")',
        '',
        'Install what the desk needs:',
        '  npm install --save-dev @types/node tsx',
        'Then: npm start (talk to it here), npm run dev (the devtools page), npm run typecheck.',
        '',
      ].join('\n'),
    );
    expect(readFileSync(join(dir, 'desk.ts'), 'utf8')).toBe('export {};\n');
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))).toEqual({
      ...manifest,
      type: 'module',
      scripts: { ...SCRIPTS, start: 'node server.js' },
    });
  });

  it('refuses a directory that does not exist and a package.json that is not JSON', async () => {
    const missing = join(scratch, 'nowhere');
    const run = await baton(['init', '--dir', missing]);
    expect([run.status, run.stderr]).toEqual([
      2,
      `baton init: ${missing} does not exist. Make it first (mkdir), or pick another --dir.\n`,
    ]);
    const broken = join(scratch, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'package.json'), '{ "name": ');
    const bad = await baton(['init', '--dir', broken]);
    expect([bad.status, bad.stderr]).toEqual([
      2,
      `baton init: ${join(broken, 'package.json')} is not JSON. Fix it or remove it, then run again.\n`,
    ]);
  });
});

describe('the desk baton init writes', () => {
  // readme.test.ts type-checks it with the README's blocks (one tsc run for both).
  it("uses the README's tsconfig.json", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(TSCONFIG).toEqual(shownTsconfig(readme));
  });

  it('runs offline: triage greets, hands an invoice question to billing, which looks it up', async () => {
    const dir = join(root, 'node_modules', '.cache', 'baton-init-desk');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n'); // as baton init writes it
    const entry = join(root, 'src', 'index.ts');
    writeFileSync(
      join(dir, 'desk.ts'),
      DESK_TS.replaceAll("from 'baton-agents'", `from '${entry}'`),
    );
    const run = await baton(['run', join(dir, 'desk.ts')], {
      input: 'hello\nWhere is my invoice INV-1002?\nthanks, bye\n',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Hello! Ask me about an invoice, e.g. "Where is INV-1001?"');
    expect(run.stdout).toContain('lookup_invoice({"invoiceId":"INV-1002"})');
    expect(run.stdout).toContain('INV-1002: $49.00, paid on 2026-11-02. Anything else?');
    expect(run.stdout).toMatch(/Finish reason: Text 'bye' mentioned\n/);
  }, 60_000);
});
