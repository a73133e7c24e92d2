// Independent suite for API.md §15 `baton serve <module> [--port] [--host] [--store <dir>] [--ui]`,
// run as a real process (bin/baton.js). Written from API.md alone. Readings where the page is open:
// - the module exports `workflow` and, for `--store`, `createWorkflow({ checkpointStore })`, as
//   §19 says of `baton run` modules;
// - "refused" for a non-loopback --host without a token: the process exits with a non-zero code
//   and never answers HTTP;
// - a generated token is printed on stdout or stderr as one whitespace-separated word;
// - the `--ui` page is HTML whose scripts and styles are inline (no `src`/`href` to http(s) URLs).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

const MODULE = 'test/independent/serve/fixtures/echo-desk.ts';
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function start(args: string[], env: Record<string, string | undefined>) {
  const { BATON_TOKEN: _drop, ...rest } = process.env;
  const child = spawn(process.execPath, ['bin/baton.js', 'serve', MODULE, ...args], {
    env: { ...rest, NO_COLOR: '1', OPENAI_API_KEY: '', ...env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return { child, output: () => output, exited };
}

/** Polls /healthz until it answers (or the process exits). */
async function up(url: string, exited: Promise<number | null>): Promise<boolean> {
  let gone = false;
  void exited.then(() => (gone = true));
  while (!gone) {
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

const post = (url: string, path: string, body: unknown, token?: string) =>
  fetch(url + path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });

describe('baton serve (API.md §15)', () => {
  it(
    'serves the module on --port with the token from BATON_TOKEN',
    { timeout: 120_000 },
    async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const token = 'cli-token-7d1e0b';
      const { exited } = start(['--port', String(port)], { BATON_TOKEN: token });
      expect(await up(url, exited)).toBe(true);
      expect((await post(url, '/sessions', { id: 'cli-1' })).status).toBe(401);
      expect((await post(url, '/sessions', { id: 'cli-1' }, 'wrong')).status).toBe(401);
      expect((await post(url, '/sessions', { id: 'cli-1' }, token)).status).toBe(201);
      const run = await post(url, '/sessions/cli-1/runs', { input: 'hi there' }, token);
      expect(run.status).toBe(200);
      const result = (await run.json()) as { status: string; pendingRequest: { prompt: string } };
      expect(result.status).toBe('awaiting_input');
      expect(result.pendingRequest.prompt).toBe('Echo: hi there');
    },
  );

  it('generates and prints a token when BATON_TOKEN is not set', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const { exited, output } = start(['--port', String(port)], {});
    expect(await up(url, exited)).toBe(true);
    expect((await post(url, '/sessions', { id: 'cli-gen' })).status).toBe(401);
    const words = [
      ...new Set(
        output()
          .split(/\s+/)
          .filter((w) => w.length >= 16),
      ),
    ];
    const statuses: number[] = [];
    for (const word of words) {
      statuses.push((await post(url, '/sessions', {}, word.replace(/[.,;'"`]+$/, ''))).status);
    }
    expect(statuses).toContain(201);
  });

  it('refuses a non-loopback --host without a token', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const { exited, output } = start(['--port', String(port), '--host', '0.0.0.0'], {});
    const code = await exited;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(output()).not.toBe('');
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('keeps sessions in --store <dir> across restarts', { timeout: 180_000 }, async () => {
    const directory = await mkdtemp(join(tmpdir(), 'baton-serve-cli-'));
    dirs.push(directory);
    const token = 'cli-token-store';
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const first = start(['--port', String(port), '--store', directory], { BATON_TOKEN: token });
    expect(await up(url, first.exited)).toBe(true);
    expect((await post(url, '/sessions', { id: 'cli-kept' }, token)).status).toBe(201);
    expect((await post(url, '/sessions/cli-kept/runs', { input: 'one' }, token)).status).toBe(200);
    first.child.kill('SIGTERM');
    await first.exited;
    expect((await readdir(directory)).length).toBeGreaterThan(0);

    const port2 = await freePort();
    const url2 = `http://127.0.0.1:${port2}`;
    const second = start(['--port', String(port2), '--store', directory], { BATON_TOKEN: token });
    expect(await up(url2, second.exited)).toBe(true);
    const messages = await fetch(`${url2}/sessions/cli-kept/messages`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(messages.status).toBe(200);
    const body = (await messages.json()) as { messages: { type: string; content?: string }[] };
    expect(body.messages.map((m) => `${m.type}:${m.content}`)).toEqual([
      'TextMessage:one',
      'TextMessage:Echo: one',
      'UserInputRequestedEvent:Echo: one',
    ]);
  });

  it('--ui serves a self-contained chat page at /', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const token = 'cli-token-ui';
    const { exited } = start(['--port', String(port), '--ui'], { BATON_TOKEN: token });
    expect(await up(url, exited)).toBe(true);
    const page = await fetch(`${url}/`, { headers: { authorization: `Bearer ${token}` } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toMatch(/<html/i);
    expect(html).not.toMatch(/\s(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import\s+url\(\s*["']?(https?:)?\/\//i);
  });
});
