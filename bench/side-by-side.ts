// The relay scenario for several builds of Baton in one process, interleaved session by session
// and turn by turn, so that a busy machine slows every build alike: per model call p50 over
// 50-turn sessions, and the growth of 200-turn sessions (turn 181–200 over turn 1–20). Each
// argument is a directory holding a build of one commit, e.g.
//   git worktree add /tmp/base <commit> && ln -s "$PWD/node_modules" /tmp/base/node_modules
//   (cd /tmp/base && npx tsc -p tsconfig.build.json --outDir /tmp/base/dist)
//   npx tsx bench/side-by-side.ts /tmp/base/dist dist
// With `--store`, each workflow commits its steps to a MemoryCheckpointStore (the records are
// encoded; without it nothing is).
// Usage: side-by-side.ts <dist directory>... [--rounds n] [--store]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import type * as Baton from '../src/index.js';
import { median, NEXT, percentile, RELAY, userTurn } from './relay.js';

const args = process.argv.slice(2);
const roundsAt = args.indexOf('--rounds');
const rounds = roundsAt === -1 ? 3 : Number(args[roundsAt + 1]);
const dirs = args.filter((a, i) => !a.startsWith('--') && i !== roundsAt + 1);
const withStore = args.includes('--store');
if (dirs.length === 0)
  throw new Error('Give at least one directory with a build (see the header).');

const usage = { promptTokens: 0, completionTokens: 0 };
let callId = 0;
let calls = 0;

/** The relay desk of bench/relay-desk.ts, built with the Baton of `dir`. */
async function deskOf(dir: string) {
  const baton = (await import(pathToFileURL(resolve(dir, 'index.js')).href)) as typeof Baton;
  const agents = RELAY.map(
    (name) =>
      new baton.Agent({
        name,
        description: 'A relay agent.',
        instructions: 'Pass the request along the relay.',
        client: {
          async create() {
            calls++;
            const next = NEXT[name];
            if (next !== undefined) {
              const id = `c${++callId}`;
              return {
                content: null,
                toolCalls: [{ id, name: `handoff_to_${next}`, arguments: '{}' }],
                usage,
              };
            }
            return {
              content: `Your account request number ${callId} is done. Anything else?`,
              toolCalls: [],
              usage,
            };
          },
        },
      }),
  ) as [Baton.Agent, Baton.Agent, Baton.Agent, Baton.Agent];
  const [triage, billing, technical, account] = agents;
  const builder = new baton.HandoffBuilder({ name: 'relay', participants: agents })
    .coordinator(triage)
    .addHandoff(billing, [technical])
    .addHandoff(technical, [account])
    .withMaxTurns(10);
  const workflow = (
    withStore ? builder.withCheckpointing(new baton.MemoryCheckpointStore()) : builder
  ).build();
  return { dir, workflow, perCall: [] as number[], early: [] as number[], late: [] as number[] };
}

const desks: Awaited<ReturnType<typeof deskOf>>[] = [];
for (const dir of dirs) desks.push(await deskOf(dir));
let sessions = 0;
async function timedTurn(session: { run(text: string): Promise<unknown> }, t: number) {
  const start = process.hrtime.bigint();
  await session.run(userTurn(t));
  return Number(process.hrtime.bigint() - start) / 1000;
}

// Warm-up, then per call: 50-turn sessions, one per build in turn.
for (const desk of desks) {
  const session = desk.workflow.session(`warm-up-${sessions++}`);
  for (let t = 1; t <= 50; t++) await timedTurn(session, t);
}
// The order alternates from round to round: a build run right after another runs faster.
const inTurn = (r: number) => (r % 2 === 0 ? desks : [...desks].reverse());
for (let r = 0; r < rounds; r++) {
  for (const desk of inTurn(r)) {
    const session = desk.workflow.session(`per-call-${sessions++}`);
    for (let t = 1; t <= 50; t++) {
      const us = await timedTurn(session, t);
      if (t > 5) desk.perCall.push(us / 4);
    }
  }
}
// Growth: 200-turn sessions, one per build and round, turn by turn; the medians pool the rounds.
for (let r = 0; r < rounds; r++) {
  const long = desks.map((desk) => desk.workflow.session(`growth-${sessions++}`));
  for (let t = 1; t <= 200; t++) {
    for (const desk of inTurn(t + r)) {
      const session = long[desks.indexOf(desk)] as { run(text: string): Promise<unknown> };
      const us = await timedTurn(session, t);
      if (t <= 20) desk.early.push(us);
      if (t > 180) desk.late.push(us);
    }
  }
}
if (calls % 4 !== 0)
  throw new Error(`The relay made ${calls} model calls; it should make 4 a turn.`);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
console.log(
  JSON.stringify({
    bench: 'side-by-side',
    rounds,
    store: withStore,
    builds: desks.map((desk) => ({
      dir: desk.dir,
      perCallP50Us: percentile(sorted(desk.perCall), 0.5),
      perCallP90Us: percentile(sorted(desk.perCall), 0.9),
      turn1to20Us: median(desk.early),
      turn181to200Us: median(desk.late),
      growth: median(desk.late) / median(desk.early),
    })),
  }),
);
