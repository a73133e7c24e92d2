import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

/**
 * Issue 12, items 11 and 10 (devtools part), through `baton dev` as a user starts it (README:
 * it prints `Baton devtools: http://127.0.0.1:<port>/?token=<token>`; every request needs the
 * token as `?token=`).
 */

const root = resolve(import.meta.dirname, '../../..');
const tsx = join(root, 'node_modules/tsx/dist/esm/index.mjs');
const KEY = 'sk-i12-devtools-SECRET-9876543210fedcba';

const children: ChildProcess[] = [];
const servers: Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null) {
      await new Promise<void>((done) => {
        child.on('close', () => done());
        child.kill('SIGINT');
      });
    }
  }
  await Promise.all(
    servers.splice(0).map((s) => new Promise<void>((done) => s.close(() => done()))),
  );
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** Starts `baton dev <module>` and resolves with its base URL, token and captured stderr. */
async function devtools(module: string, env: Record<string, string> = {}) {
  const child = spawn(
    process.execPath,
    ['--import', tsx, join(root, 'src/cli/main.ts'), 'dev', module],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
    },
  );
  children.push(child);
  const output = { stderr: '' };
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const line = await new Promise<string>((done, fail) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) done(stdout);
    });
    child.on('close', (code) => fail(new Error(`baton dev exited ${code}: ${output.stderr}`)));
  });
  const match = /^Baton devtools: (http:\/\/127\.0\.0\.1:\d+)\/\?token=([A-Za-z0-9_-]+)\n$/.exec(
    line,
  );
  expect(match).not.toBeNull();
  const [, base, token] = match as RegExpExecArray;
  return { base: base as string, token: token as string, output, child };
}

describe('devtools: a malformed percent-escape is a 400 (item 11)', () => {
  it('GET /api/sessions/%E0%A4%A and friends answer 400, and the server keeps serving', async () => {
    const { base, token, output } = await devtools('samples/support-desk.ts');
    const paths: [string, string][] = [
      ['GET', '/api/sessions/%E0%A4%A'],
      ['GET', '/api/sessions/%'],
      ['GET', '/api/sessions/%ZZ'],
      ['GET', '/api/sessions/%C0%80'],
      ['POST', '/api/sessions/%E0%A4%A/run'],
      ['POST', '/api/sessions/%E0%A4%A/stop'],
    ];
    for (const [method, path] of paths) {
      const response = await fetch(`${base}${path}?token=${token}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: JSON.stringify({ text: 'hi' }) } : {}),
      });
      expect([method, path, response.status]).toEqual([method, path, 400]);
      await response.text();
    }
    const ok = await fetch(`${base}/api/sessions?token=${token}`);
    expect(ok.status).toBe(200);
    expect(output.stderr).not.toMatch(/URIError|at .*\.ts:\d+/);
  });

  it('without the token a malformed path is still a 401 (the token is checked first)', async () => {
    const { base } = await devtools('samples/support-desk.ts');
    expect((await fetch(`${base}/api/sessions/%E0%A4%A`)).status).toBe(401);
  });
});

describe('devtools: a key echoed by a provider never reaches the page (item 10)', () => {
  it('a 401 whose body repeats the Authorization header: no key, no Bearer token in any event', async () => {
    const provider = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { message: `Invalid credentials: ${String(req.headers.authorization)}` },
          }),
        );
      });
    });
    servers.push(provider);
    await new Promise<void>((done) => provider.listen(0, '127.0.0.1', done));
    const { port } = provider.address() as AddressInfo;

    const dir = await mkdtemp(join(tmpdir(), 'baton-i12-devtools-'));
    dirs.push(dir);
    const module = join(dir, 'leaky-desk.ts');
    const index = pathToFileURL(join(root, 'src/index.ts')).href;
    await writeFile(
      module,
      [
        `import { Agent, HandoffBuilder, OpenAIChatClient } from ${JSON.stringify(index)};`,
        `const client = new OpenAIChatClient({ model: 'leaky-model', apiKey: ${JSON.stringify(KEY)}, baseURL: 'http://127.0.0.1:${port}/v1' });`,
        `export const workflow = new HandoffBuilder({ participants: [new Agent({ name: 'helper', client })] }).coordinator('helper').build();`,
        '',
      ].join('\n'),
    );
    const { base, token } = await devtools(module);

    const controller = new AbortController();
    const events = await fetch(`${base}/api/events?token=${token}`, { signal: controller.signal });
    expect(events.status).toBe(200);
    let raw = '';
    const reader = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of events.body as AsyncIterable<Uint8Array>) {
          raw += decoder.decode(chunk, { stream: true });
        }
      } catch {
        // aborted at the end of the test
      }
    })();

    const headers = { 'x-baton-token': token, 'content-type': 'application/json' };
    const created = await fetch(`${base}/api/sessions`, { method: 'POST', headers, body: '{}' });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    const run = await fetch(`${base}/api/sessions/${id}/run`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ text: 'hello' }),
    });
    expect(run.status).toBe(202);
    // Wait until the run's end (its failure) has reached the page.
    while (!/^event: (failure|result|error)$/m.test(raw)) {
      await new Promise<void>((done) => setTimeout(done, 50));
    }
    expect(raw).toMatch(/leaky-model|helper/);
    const snapshot = await (await fetch(`${base}/api/sessions/${id}?token=${token}`)).text();
    controller.abort();
    await reader;
    for (const text of [raw, snapshot]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toMatch(/Bearer\s+[A-Za-z0-9]/);
    }
  });
});
