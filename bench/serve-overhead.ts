// Serving over HTTP (issue 29): what `serve()` adds to a relay turn, and what an open stream costs.
//
// `turns <memory|postgres> [json]`: the relay scenario (4 model calls, 3 handoffs a turn, instant models)
// run turn by turn on pairs of sessions, one in-process (`session.run()`), one over HTTP
// (`POST /sessions/:id/runs` with `Accept: text/event-stream` to `serve()` behind node:http on
// 127.0.0.1, the SSE read to its `result`), the two alternating so that load on a shared machine
// falls on both alike. The client (node:http, one kept-alive socket) runs in the same process as
// the server: the added cost is both ends of the HTTP layer. Every HTTP turn's events are counted (12 messages and the result).
// With BENCH_SERVER=bare the HTTP side is not `serve()` but the floor under it: a bare node:http
// handler that runs the turn with `runStream()` and writes each message as an SSE frame as it comes
// (no authentication, routing, owner check, run hub, Hono or web streams).
// With BENCH_CLIENT=process the client runs in a child process instead (`turn-client`), told each
// turn over IPC, and times its own request (send to the end of the answer), as a browser or
// another machine would: the server's process then does only the server's half.
//
// `streams`: 1,000 sessions whose runs are held at their first model call, each followed by a
// client in a child process (`clients`), over one node:http server. The heap of 1,000 such runs
// started in-process is taken first; the heap per open stream is what the same 1,000 runs cost
// more when each is started over HTTP and streamed. Then the runs are let go and the clients count
// every event: none may be lost. Needs `--expose-gc`.
import { type ChildProcess, spawn } from 'node:child_process';
import { Agent as HttpAgent, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { createAdaptorServer } from '@hono/node-server';

import {
  Agent,
  type ChatClient,
  type CheckpointStore,
  HandoffBuilder,
  MemoryCheckpointStore,
  type ModelResult,
  PostgresCheckpointStore,
  serve,
} from '../src/index.js';
import { relayDesk } from './relay-desk.js';
import { listenBare } from './serve-bare.js';
import { median, NEXT, percentile, RELAY, userTurn } from './relay.js';
import { dropStatement } from '../src/checkpoint/postgres-sql.js';

const TOKEN = 'bench-token';
const EVENTS_PER_TURN = 13; // the user's message, 11 messages of the relay, the result
const [mode = 'turns', arg, answer = 'sse'] = process.argv.slice(2);
/** `turns <store> json`: the run's answer as JSON once it ends, not streamed (no events counted). */
const streamed = answer !== 'json';
/** BENCH_SERVER=bare: the floor, a bare node:http handler around `runStream()`. */
const bareServer = process.env.BENCH_SERVER?.startsWith('bare') === true;
/** BENCH_CLIENT=process: the turns' HTTP client in a process of its own. */
const clientProcess = process.env.BENCH_CLIENT === 'process';

/** `serve(workflow)` on node:http at 127.0.0.1, on a free port. */
async function listen(workflow: Parameters<typeof serve>[0]) {
  const handler = serve(workflow, { token: TOKEN });
  const server = createAdaptorServer({ fetch: (request: Request) => handler.fetch(request) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async close() {
      await handler.close();
      (server as Server).closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/**
 * The turns' client: node:http over one kept-alive socket, the lean client a server's own cost is
 * measured with (undici's `fetch()` in the same process costs about 0.13 ms more a request, all of
 * it on the client's side).
 */
const keepAlive = new HttpAgent({ keepAlive: true, maxSockets: 1 });

/** POSTs `body` and reads the whole answer; `agent: false` for a socket of its own. */
function post(
  url: string,
  path: string,
  body: unknown,
  extra: Record<string, string> = {},
  agent: HttpAgent | false = keepAlive,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}${path}`,
      { method: 'POST', headers: { ...headers, ...extra }, agent },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function createSession(url: string, id: string, agent?: HttpAgent | false): Promise<void> {
  const { status } = await post(url, '/sessions', { id }, {}, agent);
  if (status !== 201) throw new Error(`POST /sessions answered ${status}`);
}

/** One turn over HTTP: the run's SSE read to its end; returns how many events came. */
async function httpTurn(url: string, id: string, text: string): Promise<number> {
  const response = await post(
    url,
    `/sessions/${id}/runs`,
    { input: text },
    { accept: streamed ? 'text/event-stream' : 'application/json' },
  );
  if (response.status !== 200) throw new Error(`POST /runs answered ${response.status}`);
  if (!streamed) return EVENTS_PER_TURN;
  return response.text.split('\n\n').filter((block) => /^data:/m.test(block)).length;
}

async function turns(storeKind: string): Promise<void> {
  const table = `bench_serve_${process.pid}`;
  const store: CheckpointStore =
    storeKind === 'postgres'
      ? new PostgresCheckpointStore({
          connectionString: 'postgres://postgres@127.0.0.1:5432/test',
          table,
        })
      : new MemoryCheckpointStore();
  const { workflow } = relayDesk(store);
  const server = bareServer
    ? await listenBare(workflow, process.env.BENCH_SERVER === 'bare-batched')
    : await listen(workflow);
  const client = clientProcess ? turnClient(server.url) : undefined;
  // Postgres commits 13 steps a turn: fewer, shorter sessions keep the run within minutes.
  const [sessions, length, warmUp] = storeKind === 'postgres' ? [8, 20, 2] : [30, 50, 10];
  const inProcess: number[] = [];
  const overHttp: number[] = [];
  // The added cost by the turn's place in its session: the first 10 turns against the last 10.
  const addedEarly: number[] = [];
  const addedLate: number[] = [];
  // The added cost by which side went first.
  const addedHttpFirst: number[] = [];
  const addedHttpSecond: number[] = [];
  let lostEvents = 0;
  for (let s = 0; s < warmUp + sessions; s++) {
    const local = workflow.session(`local-${s}`);
    const remote = `remote-${s}`;
    if (client === undefined) await createSession(server.url, remote);
    else await client.ask({ create: remote });
    for (let t = 1; t <= length; t++) {
      const inProcessTurn = async () => {
        const start = process.hrtime.bigint();
        await local.run(userTurn(t));
        return Number(process.hrtime.bigint() - start) / 1000;
      };
      const remoteTurn = async (): Promise<{ events: number; us: number }> => {
        if (client !== undefined) return client.ask({ id: remote, text: userTurn(t) });
        const start = process.hrtime.bigint();
        const events = await httpTurn(server.url, remote, userTurn(t));
        return { events, us: Number(process.hrtime.bigint() - start) / 1000 };
      };
      // Which side goes first alternates turn by turn: a turn right after another's commits may
      // find the disk busier than the one before it.
      let a: number;
      let events: number;
      let b: number;
      if (t % 2 === 1) {
        a = await inProcessTurn();
        ({ events, us: b } = await remoteTurn());
      } else {
        ({ events, us: b } = await remoteTurn());
        a = await inProcessTurn();
      }
      if (events !== EVENTS_PER_TURN) lostEvents += EVENTS_PER_TURN - events;
      if (s >= warmUp) {
        inProcess.push(a);
        overHttp.push(b);
        if (t <= 10) addedEarly.push(b - a);
        if (t > length - 10) addedLate.push(b - a);
        (t % 2 === 1 ? addedHttpSecond : addedHttpFirst).push(b - a);
      }
    }
  }
  keepAlive.destroy();
  client?.close();
  await server.close();
  if (storeKind === 'postgres') {
    const pg = await import('pg');
    const client = new pg.default.Client({
      connectionString: 'postgres://postgres@127.0.0.1:5432/test',
    });
    await client.connect();
    await client.query(dropStatement(table));
    await client.end();
  }
  await store.close();
  const sortedA = [...inProcess].sort((x, y) => x - y);
  const sortedB = [...overHttp].sort((x, y) => x - y);
  console.log(
    JSON.stringify({
      bench: 'serve-overhead',
      mode: 'turns',
      store: storeKind,
      answer: streamed ? 'sse' : 'json',
      client: clientProcess ? 'process' : 'in the server process',
      server: bareServer ? `${process.env.BENCH_SERVER} node:http + runStream()` : 'serve()',
      turns: inProcess.length,
      inProcessP50Us: percentile(sortedA, 0.5),
      inProcessP99Us: percentile(sortedA, 0.99),
      httpP50Us: percentile(sortedB, 0.5),
      httpP99Us: percentile(sortedB, 0.99),
      addedP50Us: percentile(sortedB, 0.5) - percentile(sortedA, 0.5),
      addedP99Us: percentile(sortedB, 0.99) - percentile(sortedA, 0.99),
      addedMedianOfPairsUs: median(overHttp.map((b, i) => b - (inProcess[i] as number))),
      turnsPerSession: length,
      addedEarlyUs: median(addedEarly),
      addedLateUs: median(addedLate),
      addedHttpFirstUs: median(addedHttpFirst),
      addedHttpSecondUs: median(addedHttpSecond),
      lostEvents,
    }),
  );
}

/** The relay desk whose models wait at `gate` until it opens; then they answer instantly. */
function gatedDesk(gate: { open: Promise<void> }) {
  let callId = 0;
  const client = (agent: string): ChatClient => ({
    async create(): Promise<ModelResult> {
      await gate.open;
      const next = NEXT[agent];
      const usage = { promptTokens: 0, completionTokens: 0 };
      if (next !== undefined) {
        const call = { id: `c${++callId}`, name: `handoff_to_${next}`, arguments: '{}' };
        return { content: null, toolCalls: [call], usage };
      }
      return { content: 'Done. Anything else?', toolCalls: [], usage };
    },
  });
  const [triage, billing, technical, account] = RELAY.map(
    (name) => new Agent({ name, description: 'A relay agent.', client: client(name) }),
  ) as [Agent, Agent, Agent, Agent];
  return new HandoffBuilder({ name: 'relay', participants: [triage, billing, technical, account] })
    .coordinator(triage)
    .addHandoff(billing, [technical])
    .addHandoff(technical, [account])
    .build();
}

const STREAMS = 1000;

function heap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('serve-overhead.ts streams needs `node --expose-gc`.');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

function gate() {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { gate: { open: promise }, open };
}

async function streams(): Promise<void> {
  // 1,000 runs held in-process: the runs' own heap, without HTTP.
  const held = gate();
  const local = gatedDesk(held.gate);
  const before = heap();
  const runs = Array.from({ length: STREAMS }, (_, i) => local.session(`local-${i}`).run('hi'));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const localHeap = heap() - before;
  held.open();
  await Promise.all(runs);

  const remote = gate();
  const server = await listen(gatedDesk(remote.gate));
  const base = heap();
  const clients = spawnClients(server.url);
  await clients.line('open');
  const httpHeap = heap() - base;
  remote.open();
  const counted = JSON.parse(await clients.line('{')) as {
    streams: number;
    events: number;
    complete: number;
  };
  await server.close();
  console.log(
    JSON.stringify({
      bench: 'serve-overhead',
      mode: 'streams',
      ...counted,
      expectedEvents: STREAMS * EVENTS_PER_TURN,
      heapPerRunInProcessBytes: localHeap / STREAMS,
      heapPerRunOverHttpBytes: httpHeap / STREAMS,
      heapPerOpenStreamBytes: (httpHeap - localHeap) / STREAMS,
    }),
  );
}

/** A turn's client in a child process (`turn-client`): `ask` sends one request over IPC. */
function turnClient(url: string) {
  const tsx = join(import.meta.dirname, '..', 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', tsx, import.meta.filename, 'turn-client', url, answer],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  let answered: ((reply: { events: number; us: number }) => void) | undefined;
  child.on('message', (reply: { events: number; us: number }) => answered?.(reply));
  return {
    ask(question: { create: string } | { id: string; text: string }) {
      return new Promise<{ events: number; us: number }>((resolve) => {
        answered = resolve;
        child.send(question);
      });
    },
    close: () => child.kill(),
  };
}

/** In the child: makes each turn it is asked for and answers with its own timing. */
function turnsFromParent(url: string): void {
  process.on('message', (question: { create?: string; id?: string; text?: string }) => {
    void (async () => {
      if (question.create !== undefined) {
        await createSession(url, question.create);
        process.send?.({ events: 0, us: 0 });
        return;
      }
      const start = process.hrtime.bigint();
      const events = await httpTurn(url, question.id as string, question.text as string);
      process.send?.({ events, us: Number(process.hrtime.bigint() - start) / 1000 });
    })();
  });
}

/** The client process; `line(prefix)` resolves with its next stdout line starting so. */
function spawnClients(url: string) {
  const tsx = join(import.meta.dirname, '..', 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', tsx, import.meta.filename, 'clients', url],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let buffer = '';
  const waiting: { prefix: string; resolve: (line: string) => void }[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let i = buffer.indexOf('\n'); i !== -1; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      const index = waiting.findIndex((w) => line.startsWith(w.prefix));
      if (index !== -1) waiting.splice(index, 1)[0]?.resolve(line);
    }
  });
  return {
    line: (prefix: string) => new Promise<string>((resolve) => waiting.push({ prefix, resolve })),
  };
}

/** In the child: opens the streams, says "open" once each has its first event, then counts. */
async function clients(url: string): Promise<void> {
  let firstEvents = 0;
  let events = 0;
  let complete = 0;
  let announced = false;
  const one = async (i: number) => {
    const id = `stream-${i}`;
    await createSession(url, id, false);
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        `${url}/sessions/${id}/runs`,
        { method: 'POST', headers: { ...headers, accept: 'text/event-stream' }, agent: false },
        (response) => {
          let buffer = '';
          let seen = 0;
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            buffer += chunk;
            const blocks = buffer.split('\n\n');
            buffer = blocks.pop() ?? '';
            for (const block of blocks) {
              if (!/^data:/m.test(block)) continue;
              seen++;
              events++;
              if (seen === 1 && ++firstEvents === STREAMS && !announced) {
                announced = true;
                console.log('open');
              }
            }
          });
          response.on('end', () => {
            if (seen === EVENTS_PER_TURN) complete++;
            resolve();
          });
          response.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ input: 'hi' }));
    });
  };
  await Promise.all(Array.from({ length: STREAMS }, (_, i) => one(i)));
  console.log(JSON.stringify({ streams: STREAMS, events, complete }));
}

if (mode === 'turns') await turns(arg ?? 'memory');
else if (mode === 'streams') await streams();
else if (mode === 'clients') await clients(arg as string);
else if (mode === 'turn-client') turnsFromParent(arg as string);
else throw new Error(`serve-overhead.ts: unknown mode "${mode}" (turns, streams or clients).`);
