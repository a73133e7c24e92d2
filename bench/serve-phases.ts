// Issue 29: where the time of a relay turn over HTTP goes, against the same turn in-process, by
// phase: before the turn's first store call (`pre`: for HTTP the request, routing and the run's
// start), from the first store call to the end of the last (`mid`: the run), and after it (`post`:
// the answer to the end of its read), with each store call's own time and the JavaScript time
// between calls (`gap`). Only turns after a session's first in this process (its first makes
// more store calls). The same setting as serve-overhead.ts: node:http on 127.0.0.1, one kept-alive
// socket, the client in the server's process.
// With BENCH_SERVER=bare the HTTP side is the floor under `serve()` (bench/serve-bare.ts).
// `node --import tsx bench/serve-phases.ts <memory|postgres> [json]`
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createAdaptorServer } from '@hono/node-server';
import pg from 'pg';

import type { CheckpointStore } from '../src/index.js';
import { MemoryCheckpointStore, PostgresCheckpointStore, serve } from '../src/index.js';
import { relayDesk, userTurn } from './relay-desk.js';
import { listenBare } from './serve-bare.js';
import { median } from './relay.js';
import { dropStatement } from '../src/checkpoint/postgres-sql.js';

const TOKEN = 'bench-token';
const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
const [kind = 'postgres', answer = 'sse'] = process.argv.slice(2);
const accept = answer === 'json' ? 'application/json' : 'text/event-stream';

/** The store calls of the turn being measured: when each began and ended (µs, hrtime). */
let calls: [number, number][] = [];
const now = () => Number(process.hrtime.bigint()) / 1000;
async function timed<T>(call: () => Promise<T>): Promise<T> {
  const start = now();
  try {
    return await call();
  } finally {
    calls.push([start, now()]);
  }
}

const pool = new pg.Pool({ connectionString: DATABASE_URL });
const table = `bench_phases_${process.pid}`;
const store: CheckpointStore =
  kind === 'postgres'
    ? new PostgresCheckpointStore({
        pool: { query: (text, values) => timed(() => pool.query(text, values)) },
        table,
      })
    : new Proxy(new MemoryCheckpointStore(), {
        get(target, key) {
          const value: unknown = Reflect.get(target, key, target);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) =>
            timed(async () => Reflect.apply(value, target, args) as unknown);
        },
      });
const { workflow } = relayDesk(store);
const bare = process.env.BENCH_SERVER?.startsWith('bare') === true;
const handler = serve(workflow, { token: TOKEN });
const server = createAdaptorServer({ fetch: (request: Request) => handler.fetch(request) });
const floor = bare
  ? await listenBare(workflow, process.env.BENCH_SERVER === 'bare-batched')
  : undefined;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = floor?.url ?? `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });

function post(path: string, body: unknown, extra: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      ...extra,
    };
    const req = httpRequest(`${url}${path}`, { method: 'POST', agent, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(text));
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const figures = new Map<string, number[]>();
const note = (key: string, value: number) => figures.set(key, [...(figures.get(key) ?? []), value]);

/** Times `turn` and notes its phases under `side` (`in` or `http`). */
async function measure(side: string, turn: () => Promise<unknown>, keep: boolean): Promise<void> {
  calls = [];
  const start = now();
  await turn();
  const end = now();
  const [first, last] = [calls[0], calls.at(-1)];
  if (!keep || first === undefined || last === undefined) return;
  note(`${side}.total`, end - start);
  note(`${side}.pre`, first[0] - start);
  note(`${side}.mid`, last[1] - first[0]);
  note(`${side}.post`, end - last[1]);
  calls.forEach(([from, to], i) => {
    note(`${side}.call${i}`, to - from);
    const before = calls[i - 1];
    if (before !== undefined) note(`${side}.gap${i}`, from - before[1]);
  });
}

for (let s = 0; s < 12; s++) {
  const local = workflow.session(`local-${s}`);
  await post('/sessions', { id: `remote-${s}` });
  for (let t = 1; t <= 20; t++) {
    const keep = s >= 2 && t > 1;
    await measure('in', () => local.run(userTurn(t)), keep);
    const body = { input: userTurn(t) };
    await measure('http', () => post(`/sessions/remote-${s}/runs`, body, { accept }), keep);
  }
}
const out: Record<string, number> = {};
for (const [key, values] of figures) out[key] = Math.round(median(values));
const serverKind = bare ? `${process.env.BENCH_SERVER} node:http + runStream()` : 'serve()';
console.log(
  JSON.stringify({ bench: 'serve-phases', store: kind, answer, server: serverKind, medianUs: out }),
);
agent.destroy();
await floor?.close();
await handler.close();
server.close();
if (kind === 'postgres') {
  await pool.query(dropStatement(table));
}
await store.close();
await pool.end();
