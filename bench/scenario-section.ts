// The "Graph and team figures" section of `npm run bench` (issue 19): the relay's figures for the
// same four agents in a graph workflow and in two teams (bench/scenario-desks.ts), next to the
// relay's own, measured in one run. Each measurement runs in a fresh child process; the rounds
// interleave the scenarios measurement by measurement, and each figure is the median over the
// rounds, each "÷ relay" the median of the rounds' own ratios (neighbouring runs share the load).
// Run alone (`npx tsx bench/scenario-section.ts [rounds] [raw.json]`) it prints the section and
// can keep every round's figures in raw.json; bench/run.ts includes it.
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';

import { bytes, fmt, time, times } from './format.js';
import { type Figures, measure } from './measure.js';
import { median, type Scenario, SCENARIOS } from './relay.js';

type StoreKind = (typeof STORES)[number];

const ORDER = Object.keys(SCENARIOS) as Scenario[];
const STORES = ['memory', 'file', 'postgres', 'redis'] as const;
const STORE_NAMES: Record<StoreKind, string> = {
  memory: 'MemoryCheckpointStore',
  file: 'FileCheckpointStore',
  postgres: 'PostgresCheckpointStore',
  redis: 'RedisCheckpointStore',
};

/** The figures of one scenario in one round, each from its own child process. */
export interface ScenarioRound {
  overhead: Figures;
  overheadFile: Figures;
  heap: Figures;
  concurrent: Figures;
  stores: Partial<Record<StoreKind, Figures>>;
}

/** Runs `rounds` rounds; within a round each measurement runs for every scenario in turn. */
export function measureScenarios(rounds: number): Record<Scenario, ScenarioRound[]> {
  const runs = Object.fromEntries(ORDER.map((s) => [s, [] as ScenarioRound[]])) as Record<
    Scenario,
    ScenarioRound[]
  >;
  for (let round = 0; round < rounds; round++) {
    // Rotating the order keeps any scenario from always running right after another one.
    const order = ORDER.map((_, i) => ORDER[(i + round) % ORDER.length] as Scenario);
    const rows = Object.fromEntries(
      order.map((s) => [s, { stores: {} } as ScenarioRound]),
    ) as Record<Scenario, ScenarioRound>;
    const each = (fill: (scenario: Scenario, row: ScenarioRound) => void) => {
      for (const s of order) fill(s, rows[s]);
    };
    const flag = (s: Scenario) => ['--scenario', s];
    each((s, row) => (row.overhead = measure('relay-overhead.ts', ['baton', ...flag(s)])));
    each((s, row) => (row.overheadFile = measure('relay-overhead.ts', ['baton-file', ...flag(s)])));
    each(
      (s, row) => (row.heap = measure('paused-heap.ts', ['baton', ...flag(s)], ['--expose-gc'])),
    );
    each((s, row) => (row.concurrent = measure('concurrent.ts', ['baton', ...flag(s)])));
    for (const store of STORES) {
      each((s, row) => (row.stores[store] = measure('checkpoint-bytes.ts', [store, ...flag(s)])));
    }
    for (const s of ORDER) runs[s].push(rows[s]);
  }
  return runs;
}

const num = (value: unknown) => (typeof value === 'number' ? value : undefined);
const medianOf = (values: (number | undefined)[]) => {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length === 0 ? undefined : median(known);
};
const at200 = (figures: Figures | undefined) =>
  (figures?.rows as Record<string, number>[] | undefined)?.find((r) => r.turns === 200);

/** The section's lines from measured rounds. */
export function scenarioLines(runs: Record<Scenario, ScenarioRound[]>, load: number): string[] {
  const rounds = runs.relay.length;
  const med = (s: Scenario, pick: (r: ScenarioRound) => unknown) =>
    medianOf(runs[s].map((r) => num(pick(r))));
  // Each round's scenarios ran one after another, under much the same load from other processes.
  const vsRelay = (s: Scenario, pick: (r: ScenarioRound) => unknown) =>
    medianOf(
      runs[s].map((r, i) => {
        const base = num(pick(runs.relay[i] as ScenarioRound));
        const value = num(pick(r));
        return base === undefined || value === undefined || base <= 0 ? undefined : value / base;
      }),
    );
  const lines = [
    '## Graph and team figures (issue 19)',
    '',
    "The relay's four agents (triage, billing, technical, account), 4 model calls a user turn, in each",
    'orchestration that takes a checkpoint store: the relay (HandoffBuilder, 3 handoffs a turn), a graph',
    'workflow running them as a fixed chain (triage → billing → technical → account, every run a new task',
    'at the entry point), and teams whose `MaxMessageTermination(5)` ends each run after the four answers',
    '(task + 4 messages), the next task resuming with the next speaker; the SelectorGroupChat picks the',
    'speaker with a `selectorFunc`, so it makes no selector model calls. Models answer at once (text in',
    'the graph and teams; the concurrency run waits 20 ms a call). ' +
      `${rounds} rounds of fresh child processes, each measurement run for every scenario in turn;`,
    'every figure is the median over the rounds, every "÷ relay" the median of the rounds\' own ratios.',
    `Load average when the run began: ${load.toFixed(1)} (${cpus().length} cores).`,
    '',
    '| scenario | per model call p50 (50-turn session) | p90 | turn 1–20 (median per turn) | turn 181–200 | growth | heap per paused session (the thread alone in memory) | 1,000 sessions × 2 turns at 20 ms a call (ideal 160 ms) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const s of ORDER) {
    const heap = med(s, (r) => r.heap.heapPerSessionBytes);
    const wall = med(s, (r) => r.concurrent.wallMs);
    lines.push(
      `| ${SCENARIOS[s].label} | ${time(med(s, (r) => r.overhead.perCallP50Us))} | ` +
        `${time(med(s, (r) => r.overhead.perCallP90Us))} | ${time(med(s, (r) => r.overhead.turn1to20Us))} | ` +
        `${time(med(s, (r) => r.overhead.turn181to200Us))} | ${times(med(s, (r) => r.overhead.growth))} | ` +
        `${bytes(heap)} (${bytes(med(s, (r) => r.heap.threadHeapBytes))}) | ` +
        `${wall === undefined ? 'n/a' : `${fmt(wall)} ms (${times(med(s, (r) => r.concurrent.wallOverIdeal))})`} |`,
    );
    lines.push(
      `| ${SCENARIOS[s].label} + FileCheckpointStore | ${time(med(s, (r) => r.overheadFile.perCallP50Us))} | ` +
        `${time(med(s, (r) => r.overheadFile.perCallP90Us))} | ${time(med(s, (r) => r.overheadFile.turn1to20Us))} | ` +
        `${time(med(s, (r) => r.overheadFile.turn181to200Us))} | ${times(med(s, (r) => r.overheadFile.growth))} | — | — |`,
    );
  }
  lines.push(
    '',
    '| ÷ relay (per-round ratios) | per call p50 | turn 181–200 | growth | heap per paused session | concurrent wall time |',
    '|---|---|---|---|---|---|',
  );
  for (const s of ORDER.filter((s) => s !== 'relay')) {
    lines.push(
      `| ${SCENARIOS[s].label} | ${times(vsRelay(s, (r) => r.overhead.perCallP50Us))} | ` +
        `${times(vsRelay(s, (r) => r.overhead.turn181to200Us))} | ${times(vsRelay(s, (r) => r.overhead.growth))} | ` +
        `${times(vsRelay(s, (r) => r.heap.heapPerSessionBytes))} | ${times(vsRelay(s, (r) => r.concurrent.wallMs))} |`,
    );
  }
  lines.push(
    '',
    "Persisted bytes after 200 turns (bench/checkpoint-bytes.ts), next to the thread's JSON; in brackets",
    "persisted ÷ thread (issue 19's goal: ≤ 1.25×). Record bytes for the memory, Postgres and Redis",
    'stores, the files on disk for the file store.',
    '',
    `| scenario | steps per turn | thread JSON | ${STORES.map((k) => STORE_NAMES[k]).join(' | ')} |`,
    `|---|---|---|${STORES.map(() => '---|').join('')}`,
  );
  for (const s of ORDER) {
    const steps = med(s, (r) => at200(r.stores.memory)?.steps);
    const cells = STORES.map((k) => {
      const stored = med(s, (r) => at200(r.stores[k])?.storedBytes);
      return `${bytes(stored)} (${times(med(s, (r) => at200(r.stores[k])?.ratio))})`;
    });
    lines.push(
      `| ${SCENARIOS[s].label} | ${fmt(steps === undefined ? undefined : steps / 200, 1)} | ` +
        `${bytes(med(s, (r) => at200(r.stores.memory)?.threadBytes))} | ${cells.join(' | ')} |`,
    );
  }
  lines.push('');
  return lines;
}

/** Measures `rounds` rounds and returns the section's lines. */
export function scenarioSection(rounds = 3): string[] {
  const load = loadavg()[0] ?? 0;
  return scenarioLines(measureScenarios(rounds), load);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const load = loadavg()[0] ?? 0;
  const runs = measureScenarios(Number(process.argv[2] ?? 3));
  if (process.argv[3] !== undefined) writeFileSync(process.argv[3], JSON.stringify(runs, null, 1));
  console.log(scenarioLines(runs, load).join('\n'));
}
