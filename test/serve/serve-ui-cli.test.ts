import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/tsx/dist/esm/index.mjs');

/** Starts `baton serve <args>`; resolves with its first `count` lines. */
function batonServe(args: string[], env: Record<string, string>, count: number) {
  const child = spawn(
    process.execPath,
    ['--import', tsx, join(root, 'src/cli/main.ts'), 'serve', ...args],
    { cwd: root, env: { PATH: process.env.PATH ?? '', ...env } },
  );
  const lines: string[] = [];
  const printed = new Promise<string[]>((done) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      if (lines.length === count) done(lines);
    });
    child.on('close', () => done(lines));
  });
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return { child, printed, exited };
}

describe('baton serve --ui', { timeout: 60_000 }, () => {
  it('serves the chat page at / without the token in it; every route still needs the token', async () => {
    const run = batonServe(
      ['samples/support-desk.ts', '--port', '0', '--ui'],
      { BATON_TOKEN: 'ui-secret-token' },
      3,
    );
    const [first, second, third] = await run.printed;
    const url = /^Baton serve: (http:\/\/127\.0\.0\.1:\d+)$/.exec(first ?? '')?.[1] as string;
    expect(second).toBe('Token: the value of BATON_TOKEN');
    expect(third).toBe(`Chat page: ${url}/#token=<the value of BATON_TOKEN>`);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    const html = await page.text();
    expect(html).toContain('<title>support-desk</title>');
    expect(html).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-/,
    );
    expect(html).not.toContain('ui-secret-token');
    expect((await fetch(`${url}/sessions`)).status).toBe(401);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
  });

  it('prints the page with a generated token in its fragment; without --ui there is no page', async () => {
    const run = batonServe(['samples/support-desk.ts', '--port', '0', '--ui'], {}, 3);
    const [first, second, third] = await run.printed;
    const url = first?.slice('Baton serve: '.length) as string;
    const token = /: ([\w-]{32})$/.exec(second ?? '')?.[1] as string;
    expect(third).toBe(`Chat page: ${url}/#token=${token}`);
    const sessions = await fetch(`${url}/sessions`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await sessions.json()).toEqual({ sessions: [] });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(143);

    const plain = batonServe(['samples/support-desk.ts', '--port', '0'], { BATON_TOKEN: 't' }, 2);
    const [line] = await plain.printed;
    const address = line?.slice('Baton serve: '.length) as string;
    expect((await fetch(`${address}/`)).status).toBe(401);
    plain.child.kill('SIGINT');
    expect(await plain.exited).toBe(130);
  });
});
