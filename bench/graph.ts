// Graph workflows (API.md §13): (1) concurrency — a fan-out to 8 branches whose model takes 50 ms
// each, against the same graph with one branch (ideal ratio 1.0: the branches run at once, not in
// sequence); (2) the engine's cost per node answer in a 100-node chain of instant models, next to
// the relay's per-call figure. Usage: npx tsx bench/graph.ts
import { setTimeout as sleep } from 'node:timers/promises';

import { type ChatAgent, GraphBuilder, textMessage } from '../src/index.js';

const LATENCY_MS = 50;
const RUNS = 7;

function agent(name: string, latencyMs: number): ChatAgent {
  return {
    name,
    description: name,
    respond: async () => {
      if (latencyMs > 0) await sleep(latencyMs);
      return { chatMessage: textMessage({ source: name, content: `${name} done` }) };
    },
  };
}

function fanOut(branches: number) {
  const start = agent('start', 0);
  const builder = new GraphBuilder({ name: `fan${branches}` }).addNode(start);
  const names = Array.from({ length: branches }, (_, i) => `branch_${i}`);
  for (const n of names) builder.addNode(agent(n, LATENCY_MS));
  return builder.addEdge(start, names).build();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function timeRun(run: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const one = fanOut(1);
const eight = fanOut(8);
const oneMs: number[] = [];
const eightMs: number[] = [];
for (let i = 0; i < RUNS; i++) {
  oneMs.push(await timeRun(() => one.session(`s${i}`).run('go')));
  eightMs.push(await timeRun(() => eight.session(`s${i}`).run('go')));
}

const CHAIN = 100;
const chain = new GraphBuilder({ name: 'chain' }).withMaxTurns(CHAIN);
for (let i = 0; i < CHAIN; i++) chain.addNode(agent(`n${i}`, 0));
for (let i = 1; i < CHAIN; i++) chain.addEdge(`n${i - 1}`, `n${i}`);
const chained = chain.build();
for (let i = 0; i < 5; i++) await chained.session(`warm${i}`).run('go');
const perNode: number[] = [];
for (let i = 0; i < 15; i++) {
  perNode.push((await timeRun(() => chained.session(`c${i}`).run('go'))) / CHAIN);
}

console.log(
  JSON.stringify({
    bench: 'graph',
    oneBranchMs: Math.round(median(oneMs) * 10) / 10,
    eightBranchesMs: Math.round(median(eightMs) * 10) / 10,
    ratio: Math.round((median(eightMs) / median(oneMs)) * 100) / 100,
    perNodeUs: Math.round(median(perNode) * 1000),
  }),
);
