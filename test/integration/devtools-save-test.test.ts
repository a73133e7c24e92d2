import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { createWorkflow } from '../../samples/devtools-desk.js';
import { type DevtoolsServer, startDevtoolsServer } from '../../src/devtools/devtools-server.js';

// API.md §19: the devtools page's "Save as test" writes the session's recording and a Vitest test
// that replays it (the same files as `baton test record`).

const directory = mkdtempSync(join(tmpdir(), 'baton-devtools-test-'));
let server: DevtoolsServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('devtools "Save as test"', () => {
  it('writes the test and the recording of a session, and refuses an empty one', async () => {
    server = await startDevtoolsServer({
      workflow: createWorkflow({ thinkMs: 0 }),
      name: 'devtools-desk',
      module: 'samples/devtools-desk.ts',
      testDirectory: directory,
    });
    const base = `http://127.0.0.1:${server.port}`;
    const token = server.token;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: {
          'x-baton-token': token,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };
    const { json: created } = await call('POST', '/api/sessions', {});
    const id = String(created.id);
    expect(
      (await call('POST', `/api/sessions/${id}/run`, { text: 'I was charged twice for INV-1001' }))
        .status,
    ).toBe(202);
    await expect
      .poll(async () => (await call('GET', `/api/sessions/${id}`)).json.status, { timeout: 10_000 })
      .toBe('awaiting_input');

    const saved = await call('POST', `/api/sessions/${id}/test`, {});
    expect(saved).toEqual({
      status: 201,
      json: {
        test: join(directory, `${id}.test.ts`),
        recording: join(directory, `${id}.recording.json`),
      },
    });
    const recording = JSON.parse(readFileSync(join(directory, `${id}.recording.json`), 'utf8'));
    expect(recording.turns.map((t: { agent: string }) => t.agent)).toEqual(['triage', 'billing']);
    expect(recording.runs).toMatchObject([{ turns: 2, status: 'awaiting_input' }]);
    const test = readFileSync(join(directory, `${id}.test.ts`), 'utf8');
    expect(test).toContain("import { workflow } from '");
    expect(test).toContain(`it('replays session "${id}" as recorded'`);

    const { json: empty } = await call('POST', '/api/sessions', {});
    expect(await call('POST', `/api/sessions/${String(empty.id)}/test`, {})).toEqual({
      status: 400,
      json: { error: `Session "${String(empty.id)}" has no messages yet: nothing to record.` },
    });
  });
});
