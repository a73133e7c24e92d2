import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

import { describe, expect, it } from 'vitest';

import { client } from './serve-http.js';

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/tsx/dist/esm/index.mjs');

/** Starts `baton serve <args>` as `npm start` runs the CLI (tsx, from src/). */
function batonServe(args: string[], env: Record<string, string> = {}) {
  const child = spawn(
    process.execPath,
    ['--import', tsx, join(root, 'src/cli/main.ts'), 'serve', ...args],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  const printed = new Promise<string[]>((done) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      if (lines.length === 2) done(lines);
    });
    child.on('close', () => done(lines));
  });
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return { child, printed, exited, stderr: () => stderr };
}

describe('baton serve', { timeout: 60_000 }, () => {
  it('serves a workflow module with the token from BATON_TOKEN, and stops on Ctrl-C', async () => {
    const run = batonServe(['samples/support-desk.ts', '--port', '0'], {
      BATON_TOKEN: 'cli-secret-token',
    });
    const [first, second] = await run.printed;
    expect(second).toBe('Token: the value of BATON_TOKEN');
    const url = /^Baton serve: (http:\/\/127\.0\.0\.1:\d+)$/.exec(first ?? '')?.[1] as string;
    expect(url).toBeDefined();
    const call = client(url, 'cli-secret-token');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await client(url, 'wrong')('GET', '/sessions')).status).toBe(401);
    const { json } = await call('POST', '/sessions', {});
    const result = await call('POST', `/sessions/${json.id}/runs`, {
      input: 'I was charged twice for INV-1001',
    });
    expect(result.json).toMatchObject({
      status: 'awaiting_input',
      pendingRequest: {
        agent: 'billing',
        prompt: 'INV-1001 ($49) was charged twice. Shall I refund the duplicate?',
      },
    });
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
  });

  it('prints a generated token on loopback; refuses another host without BATON_TOKEN', async () => {
    const run = batonServe(['samples/support-desk.ts', '--port', '0']);
    const [first, second] = await run.printed;
    const token = /^Token \(send as Authorization: Bearer <token>\): ([\w-]{32})$/.exec(
      second ?? '',
    )?.[1] as string;
    const url = first?.slice('Baton serve: '.length) as string;
    expect((await client(url, token)('GET', '/sessions')).json).toEqual({ sessions: [] });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(143);

    const refused = batonServe(['samples/support-desk.ts', '--host', '0.0.0.0']);
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toBe(
      'baton serve: --host 0.0.0.0 is reachable from other machines; set BATON_TOKEN to the token clients must send (a generated one is only for loopback addresses).\n',
    );
  });
});
