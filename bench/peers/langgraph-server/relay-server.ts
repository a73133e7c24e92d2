// The relay scenario on LangGraph.js's own server (`@langchain/langgraph-api`, what `langgraph dev`
// runs; in-memory storage, offline) next to the same swarm invoked in-process, turn by turn in
// turn on pairs of threads, as bench/serve-overhead.ts does for Baton. An HTTP turn is
// `POST /threads/:id/runs/stream` (stream_mode "updates") read to its end. Prints one JSON line.
// Usage (from bench/serve-overhead.ts, in this package's folder): tsx relay-server.ts
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { startServer } from '@langchain/langgraph-api/server';

import { median, percentile, userTurn } from '../../relay.js';
import { relaySwarm } from './relay-graph.js';

const SESSIONS = Number(process.argv[2] ?? '8');
const LENGTH = Number(process.argv[3] ?? '6');
const WARM_UP = 1;
const PORT = 20_000 + (process.pid % 20_000);

const cwd = await mkdtemp(join(tmpdir(), 'langgraph-server-'));
const started = performance.now();
const server = await startServer({
  port: PORT,
  nWorkers: 1,
  host: '127.0.0.1',
  cwd,
  graphs: { relay: join(import.meta.dirname, 'relay-graph.ts:graph') },
});
const startMs = performance.now() - started;
const base = `http://127.0.0.1:${PORT}`;
const json = { 'content-type': 'application/json' };

const local = relaySwarm().compile({ checkpointer: new MemorySaver() });
const inProcess: number[] = [];
const overHttp: number[] = [];
let events = 0;
for (let s = 0; s < WARM_UP + SESSIONS; s++) {
  const config = { configurable: { thread_id: `local-${s}` }, recursionLimit: 50 };
  const thread = (await (
    await fetch(`${base}/threads`, { method: 'POST', headers: json, body: '{}' })
  ).json()) as { thread_id: string };
  for (let t = 1; t <= LENGTH; t++) {
    let start = process.hrtime.bigint();
    await local.invoke(
      { messages: [new HumanMessage(userTurn(t))], activeAgent: 'triage' },
      config,
    );
    const a = Number(process.hrtime.bigint() - start) / 1000;
    start = process.hrtime.bigint();
    const response = await fetch(`${base}/threads/${thread.thread_id}/runs/stream`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        assistant_id: 'relay',
        input: { messages: [{ role: 'user', content: userTurn(t) }], activeAgent: 'triage' },
        stream_mode: ['updates'],
      }),
    });
    const body = await response.text();
    const b = Number(process.hrtime.bigint() - start) / 1000;
    if (!response.ok || body.includes('event: error')) {
      throw new Error(`LangGraph server answered ${response.status}: ${body.slice(0, 300)}`);
    }
    events += body.split('\n\n').filter((block) => block.includes('event: updates')).length;
    if (s >= WARM_UP) {
      inProcess.push(a);
      overHttp.push(b);
    }
  }
}
await server.cleanup?.();
await rm(cwd, { recursive: true, force: true });
const a = [...inProcess].sort((x, y) => x - y);
const b = [...overHttp].sort((x, y) => x - y);
console.log(
  JSON.stringify({
    bench: 'langgraph-server',
    turns: a.length,
    startMs,
    inProcessP50Us: percentile(a, 0.5),
    inProcessP99Us: percentile(a, 0.99),
    httpP50Us: percentile(b, 0.5),
    httpP99Us: percentile(b, 0.99),
    addedP50Us: percentile(b, 0.5) - percentile(a, 0.5),
    addedP99Us: percentile(b, 0.99) - percentile(a, 0.99),
    addedMedianOfPairsUs: median(overHttp.map((x, i) => x - (inProcess[i] as number))),
    updatesPerTurn: events / ((WARM_UP + SESSIONS) * LENGTH),
  }),
);
process.exit(0);
