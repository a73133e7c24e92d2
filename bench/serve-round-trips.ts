// Issue 29: the store round trips of one relay turn in-process and over HTTP (SSE), counted (so
// free of noise): every query the PostgresCheckpointStore's pool is asked, by its first words.
// `node --import tsx bench/serve-round-trips.ts`
import pg from 'pg';

import { PostgresCheckpointStore, serve } from '../src/index.js';
import { relayDesk, userTurn } from './relay-desk.js';
import { dropStatement } from '../src/checkpoint/postgres-sql.js';

const TOKEN = 'bench-token';
const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
const counted: string[] = [];
const wrapped = {
  query(text: string, values?: unknown[]) {
    counted.push(text.replace(/\s+/g, ' ').trim().slice(0, 60));
    return pool.query(text, values);
  },
};
const table = `bench_trips_${process.pid}`;
const store = new PostgresCheckpointStore({ pool: wrapped, table });
const { workflow } = relayDesk(store);
const handler = serve(workflow, { token: TOKEN });
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

async function post(path: string, body: unknown, accept?: string): Promise<Response> {
  const request = new Request(`http://local${path}`, {
    method: 'POST',
    headers: accept === undefined ? headers : { ...headers, accept },
    body: JSON.stringify(body),
  });
  return handler.fetch(request);
}

const local = workflow.session('local');
await post('/sessions', { id: 'remote' });
const turns = 4;
for (let t = 1; t <= turns; t++) {
  counted.length = 0;
  await local.run(userTurn(t));
  const inProcess = [...counted];
  counted.length = 0;
  const response = await post('/sessions/remote/runs', { input: userTurn(t) }, 'text/event-stream');
  await response.text();
  const overHttp = [...counted];
  console.log(JSON.stringify({ turn: t, inProcess: inProcess.length, overHttp: overHttp.length }));
  if (t === turns) {
    console.log('in-process:\n  ' + inProcess.join('\n  '));
    console.log('over HTTP:\n  ' + overHttp.join('\n  '));
  }
}
await handler.close();
await pool.query(dropStatement(table));
await store.close();
await pool.end();
