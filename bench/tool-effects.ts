// Issue 31 (API.md §17): what a "once" tool call costs beside a "read" one — the start commit —
// on the memory, file and PostgreSQL stores, side by side in one run. One session per store and
// effect; each user turn is one model call asking for one tool call, the tool, and the answer.
// Figures: µs per turn (p50 and p90 of wall time over the measured turns, after warm-up), and the
// ratio once/read of the p50s. Rounds alternate the effects so drift hits both alike.
// Usage: npx tsx bench/tool-effects.ts [turns per round, default 200] [rounds, default 5]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';
import { z } from 'zod';

import {
  Agent,
  type CheckpointStore,
  FileCheckpointStore,
  HandoffBuilder,
  MemoryCheckpointStore,
  PostgresCheckpointStore,
  ScriptedChatClient,
  tool,
  type ToolEffect,
} from '../src/index.js';
import { dropStatement } from '../src/checkpoint/postgres-sql.js';

const TURNS = Number(process.argv[2] ?? '200');
const ROUNDS = Number(process.argv[3] ?? '5');
const POSTGRES_URL =
  process.env.BATON_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const table = `baton_bench_effects_${randomBytes(4).toString('hex')}`;
const directory = mkdtempSync(join(tmpdir(), 'baton-bench-effects-'));

function session(store: CheckpointStore, effect: ToolEffect, id: string) {
  const lookup = tool({
    name: 'lookup',
    parameters: z.object({ n: z.number() }),
    effect,
    execute: ({ n }) => `found ${n}`,
  });
  let calls = 0;
  const client = new ScriptedChatClient((request) =>
    request.messages.at(-1)?.role === 'tool'
      ? { content: 'Done.' }
      : { toolCalls: [{ id: `c${++calls}`, name: 'lookup', arguments: `{"n":${calls}}` }] },
  );
  const clerk = new Agent({ name: 'clerk', client, tools: [lookup], maxToolIterations: 2 });
  return new HandoffBuilder({ name: 'bench', participants: [clerk] })
    .coordinator(clerk)
    .withCheckpointing(store)
    .build()
    .session(id);
}

const stores: [string, CheckpointStore][] = [
  ['memory', new MemoryCheckpointStore()],
  ['file', new FileCheckpointStore(directory)],
  ['postgres', new PostgresCheckpointStore({ connectionString: POSTGRES_URL, table })],
];
const effects: ToolEffect[] = ['read', 'once'];
const times: Record<string, number[]> = {};
// A session answers `PER_SESSION` turns, then a fresh one takes over: the scripted client keeps
// every request it was sent, and a long thread would measure the thread, not the call.
const PER_SESSION = 20;
let made = 0;
const turns = async (
  store: CheckpointStore,
  effect: ToolEffect,
  count: number,
  into?: number[],
) => {
  let s = session(store, effect, `${effect}-${++made}`);
  for (let i = 0; i < count; i++) {
    if (i > 0 && i % PER_SESSION === 0) s = session(store, effect, `${effect}-${++made}`);
    const started = process.hrtime.bigint();
    const result = await s.run(`turn ${i}`);
    const took = Number(process.hrtime.bigint() - started) / 1000;
    if (result.status !== 'awaiting_input') throw new Error(`${effect}: ${result.status}`);
    into?.push(took);
  }
};
// Warm-up: turns not counted.
for (const [, store] of stores) for (const effect of effects) await turns(store, effect, 50);
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, store] of stores) {
    const order = round % 2 === 0 ? effects : [...effects].reverse();
    for (const effect of order)
      await turns(store, effect, TURNS, (times[`${name} ${effect}`] ??= []));
  }
}
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const figures: Record<string, number> = {};
console.log('| store | read p50 µs | read p90 µs | once p50 µs | once p90 µs | once/read (p50) |');
console.log('|---|---|---|---|---|---|');
for (const [name] of stores) {
  const read = times[`${name} read`] ?? [];
  const once = times[`${name} once`] ?? [];
  const row = [
    percentile(read, 50),
    percentile(read, 90),
    percentile(once, 50),
    percentile(once, 90),
  ];
  const ratio = (row[2] ?? NaN) / (row[0] ?? NaN);
  figures[`${name}.read.p50`] = Math.round(row[0] ?? NaN);
  figures[`${name}.once.p50`] = Math.round(row[2] ?? NaN);
  figures[`${name}.ratio`] = Math.round(ratio * 100) / 100;
  console.log(`| ${name} | ${row.map((v) => Math.round(v)).join(' | ')} | ${ratio.toFixed(2)} |`);
}
for (const [, store] of stores) await store.close();
rmSync(directory, { recursive: true, force: true });
const admin = new pg.Pool({ connectionString: POSTGRES_URL });
await admin.query(dropStatement(table));
await admin.end();
console.log(JSON.stringify(figures));
