// The "Issue 29: serving over HTTP" section of bench/RESULTS.md: what `serve()` adds to a relay turn
// (memory store and Postgres), 1,000 open streams on one process, and with `--peers` the same
// scenario on LangGraph.js's own server (bench/peers/langgraph-server/, installed on first use).
// Run alone (`npx tsx bench/serve-section.ts [--peers]`) it prints the section; bench/run.ts
// includes it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { bytes, fmt, time } from './format.js';
import { type Figures, measure } from './measure.js';

const here = import.meta.dirname;
const serverPeer = join(here, 'peers', 'langgraph-server');

const num = (figures: Figures, key: string) =>
  typeof figures[key] === 'number' ? (figures[key] as number) : undefined;

/** The relay on LangGraph's own server, from its own package (installed here on first use). */
function langgraphServer(): Figures {
  if (!existsSync(join(serverPeer, 'node_modules'))) {
    console.log(
      'Installing LangGraph.js server into bench/peers/langgraph-server (first run only)...',
    );
    const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
      cwd: serverPeer,
      stdio: 'inherit',
    });
    if (install.status !== 0) return {};
  }
  const tsx = join(here, '..', 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
  const run = spawnSync(process.execPath, ['--import', tsx, 'relay-server.ts', '8', '6'], {
    cwd: serverPeer,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'error' },
  });
  const line = run.stdout.trim().split('\n').at(-1);
  if (run.status !== 0 || line === undefined || !line.startsWith('{')) {
    console.error(
      `relay-server.ts failed:\n${run.stderr.trim().split('\n').slice(0, 8).join('\n')}`,
    );
    return {};
  }
  return JSON.parse(line) as Figures;
}

/** Whether a store's added p50 meets the goal of 0.5 ms. */
function verdict(figures: Figures): string {
  const added = num(figures, 'addedP50Us');
  if (added === undefined) return 'n/a';
  return added <= 500 ? 'met' : '**not met**';
}

export function serveSection(withPeers: boolean): string[] {
  const load = loadavg()[0] ?? 0;
  const memory = measure('serve-overhead.ts', ['turns', 'memory']);
  const postgres = measure('serve-overhead.ts', ['turns', 'postgres']);
  const streams = measure('serve-overhead.ts', ['streams'], ['--expose-gc']);
  const peer = withPeers ? langgraphServer() : {};
  const row = (label: string, f: Figures) =>
    `| ${label} | ${fmt(num(f, 'turns'))} | ${time(num(f, 'inProcessP50Us'))} | ${time(num(f, 'httpP50Us'))} | ` +
    `**${time(num(f, 'addedP50Us'))}** | ${time(num(f, 'inProcessP99Us'))} | ${time(num(f, 'httpP99Us'))} | ` +
    `${time(num(f, 'addedP99Us'))} | ${time(num(f, 'addedEarlyUs'))} / ${time(num(f, 'addedLateUs'))} |`;
  const perStream = num(streams, 'heapPerOpenStreamBytes');
  const lost = (num(streams, 'expectedEvents') ?? 0) - (num(streams, 'events') ?? 0);
  const lines = [
    '## Issue 29: serving over HTTP',
    '',
    'The relay scenario (4 model calls and 3 handoffs a turn, instant models) turn by turn on pairs of',
    'sessions, one called in-process (`session.run()`), one over HTTP (`POST /sessions/:id/runs`,',
    '`Accept: text/event-stream`, to `serve()` behind node:http on 127.0.0.1, the SSE read to its',
    '`result`), the two alternating so that load falls on both alike; after warm-up sessions. The client',
    '(node:http over one kept-alive socket) runs in the server\'s process: "added" is both ends of the',
    "HTTP layer. Every HTTP turn's events are",
    `counted (12 messages and the result). Load average when the run began: ${load.toFixed(1)} ` +
      `(${cpus().length} cores; the machine was shared with other helpers' builds and tests).`,
    '',
    '| store | turns | in-process p50 | over HTTP p50 | added p50 | in-process p99 | over HTTP p99 | added p99 | added, turns 1–10 / last 10 (median of pairs) |',
    '|---|---|---|---|---|---|---|---|---|',
    row('MemoryCheckpointStore (50-turn sessions)', memory),
    row('PostgresCheckpointStore (20-turn sessions)', postgres),
  ];
  if (withPeers) {
    lines.push(
      row(
        'LangGraph.js server (`@langchain/langgraph-api` 2.0.0, in-memory; 6-turn threads)',
        peer,
      ),
    );
  }
  lines.push(
    '',
    `Events lost over HTTP: ${fmt((num(memory, 'lostEvents') ?? 0) + (num(postgres, 'lostEvents') ?? 0))}. ` +
      'Goal (issue 29): at most 0.5 ms added per turn (p50) on loopback: ' +
      `${verdict(memory)} with the memory store, ${verdict(postgres)} with Postgres.`,
    '',
    `1,000 concurrent streaming clients on one process (clients in a child process, one node:http server;`,
    'each run held at its first model call until every stream has its first event, then let go):',
    `${fmt(num(streams, 'events'))} events of ${fmt(num(streams, 'expectedEvents'))} expected ` +
      `(${lost === 0 ? 'none lost' : `**${fmt(lost)} lost**`}), ${fmt(num(streams, 'complete'))} of 1,000 streams complete.`,
    `Heap per open stream: ${bytes(perStream)} (goal ≤ 50 kB: ${perStream === undefined ? 'n/a' : perStream <= 50_000 ? 'met' : '**not met**'}) — ` +
      `the heap of 1,000 held runs started over HTTP and streamed (${bytes(num(streams, 'heapPerRunOverHttpBytes'))} a run) ` +
      `less that of 1,000 held runs started in-process (${bytes(num(streams, 'heapPerRunInProcessBytes'))} a run).`,
    '',
  );
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(serveSection(process.argv.includes('--peers')).join('\n'));
}
