import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

import { SKIP_NOTES } from '../support/skip-notes.js';
import { client, parseSse, TOKEN } from './serve-http.js';
import { dropStatement } from '../../src/checkpoint/postgres-sql.js';

const DATABASE_URL =
  process.env.BATON_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const root = fileURLToPath(new URL('../../', import.meta.url));
const TSX = `${root}node_modules/tsx/dist/esm/index.mjs`;
const PROCESS = `${root}test/support/serve-process.ts`;
const TABLE = `serve_${randomUUID().slice(0, 8)}`;
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) child.stdin?.end('exit\n');
  await Promise.all(
    children.map((c) => new Promise((r) => (c.exitCode === null ? c.on('close', r) : r(null)))),
  );
  const pool = new pg.Pool({ connectionString: DATABASE_URL });
  try {
    await pool.query(dropStatement(TABLE));
  } finally {
    await pool.end();
  }
});

async function reachable(): Promise<boolean> {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await pool.query('SELECT 1');
    return true;
  } catch (error) {
    if (process.env.BATON_REQUIRE_SERVICES === '1') throw error;
    return false;
  } finally {
    await pool.end();
  }
}

/** Starts one serve process; resolves its base URL and a way to talk to its gate. */
function startServe(): Promise<{ url: string; send: (line: string) => void }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      TSX,
      PROCESS,
      JSON.stringify({ connectionString: DATABASE_URL, table: TABLE, token: TOKEN }),
    ],
    {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('close', (code) => reject(new Error(`serve process exited (${code}):\n${stderr}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (line.startsWith('url '))
        resolve({ url: line.slice(4), send: (l) => child.stdin?.write(`${l}\n`) });
    });
  });
}

const until = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 1000 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('serve(): two processes on one PostgresCheckpointStore', () => {
  it('a run started on one is streamed, resumed and stopped from the other', async (ctx) => {
    if (!(await reachable())) return ctx.skip(SKIP_NOTES.postgres);
    const [a, b] = await Promise.all([startServe(), startServe()]);
    const onA = client(a.url);
    const onB = client(b.url);
    expect((await onA('POST', '/sessions', { id: 'shared' })).status).toBe(201);
    // B sees A's session, and its owner: the id is taken there too.
    expect((await onB('POST', '/sessions', { id: 'shared' })).status).toBe(409);

    // Started on A, waiting at A's gate: B sees it running and follows it from its start.
    const running = onA('POST', '/sessions/shared/runs', { input: 'slow hello' });
    await until(async () => (await onB('GET', '/sessions/shared')).json.status === 'running');
    const stream = await fetch(`${b.url}/sessions/shared/stream`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(stream.status).toBe(200);
    const reader = stream.body?.getReader();
    let text = new TextDecoder().decode((await reader?.read())?.value);
    a.send('open');
    const result = (await running).json;
    for (let r = await reader?.read(); r !== undefined && r.done !== true; r = await reader?.read())
      text += new TextDecoder().decode(r.value);
    const followed = parseSse(text);
    expect(followed.map((e) => `${e.id} ${e.event}`)).toEqual([
      '2.1 TextMessage',
      '3.1 TextMessage',
      '3.2 UserInputRequestedEvent',
      '3.3 result',
    ]);
    expect(JSON.parse(followed.at(-1)?.data ?? '')).toMatchObject({
      status: 'awaiting_input',
      pendingRequest: result.pendingRequest,
    });
    // Committed messages are the same objects on both sides.
    expect(followed.slice(0, 3).map((e) => JSON.parse(e.data))).toEqual(result.messages);

    // Resumed on B: the refund waits for approval, decided on B, refunded on B.
    const paused = await onB('POST', '/sessions/shared/runs', { input: 'I want a refund' });
    expect(paused.json).toMatchObject({
      status: 'awaiting_input',
      pendingRequest: { kind: 'approval' },
    });
    const callId = paused.json.pendingRequest.calls[0].id;
    const decided = await onB('POST', '/sessions/shared/runs', {
      decisions: [{ callId, approve: true }],
    });
    expect(decided.json).toMatchObject({ pendingRequest: { prompt: 'Your refund is done.' } });
    // A reads it all back from the store.
    expect((await onA('GET', '/sessions/shared/messages')).json).toEqual(
      (await onB('GET', '/sessions/shared/messages')).json,
    );

    // Started on A again, stopped from B.
    a.send('close');
    const again = onA('POST', '/sessions/shared/runs', { input: 'slow once more' });
    await until(async () => (await onB('GET', '/sessions/shared')).json.status === 'running');
    expect((await onB('POST', '/sessions/shared/stop')).status).toBe(202);
    // A takes the request from the store (it releases the stop lease once it has it).
    const pool = new pg.Pool({ connectionString: DATABASE_URL });
    await until(
      async () =>
        (
          await pool.query(
            `SELECT 1 FROM ${TABLE}_leases WHERE session_id LIKE E'\\x1Fbaton.stop:%' AND expires_at > now()`,
          )
        ).rowCount === 0,
    );
    await pool.end();
    a.send('open');
    expect((await again).json).toMatchObject({
      status: 'terminated',
      stopReason: 'External termination requested',
    });
    expect((await onB('GET', '/sessions/shared')).json).toMatchObject({ status: 'terminated' });
    // B's late reconnect from the start of the log: every committed event once, in order.
    const all = parseSse(
      (await onB('GET', '/sessions/shared/stream', undefined, { 'last-event-id': '0.0' })).text,
    );
    expect(all.map((e) => e.id)).toEqual(['2.1', '3.1', '3.2', '3.3']);
  });
});
